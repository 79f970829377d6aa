package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/endodoi/endodoi/store"
)

// maxReportsListed is how many reports endodoi admin reports lists, the
// latest first.
const maxReportsListed = 200

// adminReports lists the latest reports of games, for the site's
// operator: when, the game, who reported it, why and what they wrote.
func adminReports(ctx context.Context, dbURL, dataDir string, out io.Writer) error {
	st, err := store.OpenURL(ctx, dbURL, dataDir)
	if err != nil {
		return err
	}
	defer st.Close()
	reps, err := st.Reports(ctx, maxReportsListed)
	if err != nil {
		return err
	}
	if len(reps) == 0 {
		_, err := fmt.Fprintln(out, "no reports")
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REPORTED\tGAME\tBY\tREASON\tTEXT")
	for _, r := range reps {
		by := r.By.Name
		if by == "" {
			by = store.DeletedPlayer
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
