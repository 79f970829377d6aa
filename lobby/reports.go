package lobby

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/endodoi/endodoi/lobby/seek"
	"github.com/endodoi/endodoi/play/game"
)

// MaxReportsListed is how many reports the site's operator is shown, the
// latest first (endodoi admin reports).
const MaxReportsListed = 200

// WriteReports writes reps for the site's operator, a report a line:
// when, the game, who reported it, why and what they wrote.
func WriteReports(w io.Writer, reps []seek.Report) error {
	if len(reps) == 0 {
		_, err := fmt.Fprintln(w, "no reports")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REPORTED\tGAME\tBY\tREASON\tTEXT")
	for _, r := range reps {
		by := r.By.Name
		if by == "" {
			by = game.DeletedPlayer
		}
		// The text is the reporter's: quoted, on one line, so that it
		// cannot forge lines of its own.
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Created.Format("2006-01-02 15:04"), r.GameID, quoteName(by), r.Reason,
			strconv.Quote(r.Text))
	}
	return tw.Flush()
}

// quoteName quotes a name with spaces or control characters.
func quoteName(name string) string {
	if strings.ContainsFunc(name, func(r rune) bool { return r <= ' ' || r == '"' }) {
		return strconv.Quote(name)
	}
	return name
}
