package serve

import (
	"flag"
	"fmt"
	"strconv"
	"time"

	"github.com/endodoi/endodoi/internal/limits"
)

// LimitFlags are the serve command's options for the limits of one client
// (limits.ClientLimits).
type LimitFlags struct{ c limits.ClientLimits }

// AddLimitFlags defines the options of LimitFlags on fs, with their
// defaults.
func AddLimitFlags(fs *flag.FlagSet) *LimitFlags {
	f := &LimitFlags{}
	def := limits.ClientLimits{}.WithDefaults(1)
	count := func(p *int, name string, d int, usage string) {
		*p = d
		fs.Func(name, fmt.Sprintf("%s (default %d)", usage, d), func(v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return fmt.Errorf("want a whole number of 1 or more")
			}
			*p = n
			return nil
		})
	}
	count(&f.c.LivePerClient, "live-per-client", def.LivePerClient, "at most `n` live connections held at once by one client address")
	count(&f.c.GamesPerHour, "games-per-hour", def.GamesPerHour, "at most `n` games created an hour by one client address")
	count(&f.c.InvitesPerHour, "invites-per-hour", def.InvitesPerHour, "at most `n` online games created an hour by one client address")
	count(&f.c.OpenInvites, "open-invites", def.OpenInvites, "at most `n` online games of one client address waiting for an opponent at once")
	f.c.AnalysisTime = 0 // its default follows the search slots
	fs.Func("analysis-time", "at most this `time` of the engine a minute for one client address's analyses and hints (default 30s for each search it may run at once)", func(v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second || d > time.Hour {
			return fmt.Errorf("want a duration from 1s to 1h, such as 30s")
		}
		f.c.AnalysisTime = d
		return nil
	})
	return f
}

// Limits returns the limits the options set.
func (f *LimitFlags) Limits() limits.ClientLimits { return f.c }
