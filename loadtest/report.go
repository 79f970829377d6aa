package loadtest

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
)

// Report is what a run measured.
type Report struct {
	Target      string        // the server's address
	Concurrency int           // games played at once (Config.Games)
	Rate        float64       // moves a second of each game; 0 for as fast as answers come
	Duration    time.Duration // asked for
	Holes       int
	Seeds       int

	Elapsed      time.Duration // of the load phase, until the last answer
	CreatesSent  int64         // requests to create a game
	GamesCreated int64         // games the server created
	// GamesFinished counts the games played to their end.
	GamesFinished int64
	Offered       int64   // moves sent
	Acked         int64   // moves the server acknowledged (200)
	Throughput    float64 // acknowledged moves a second

	// Errors counts the failed requests by kind: "HTTP 503" for an error
	// status, or the transport's failure ("timeout", "connection refused",
	// "connection reset", "connection closed", "bad answer", "other").
	Errors      map[string]int
	FirstErrors map[string]string // the first message of each kind

	MoveLatency   Latency // of the acknowledged moves
	CreateLatency Latency // of the games created

	// Online games (Config.Online). Offered counts the moves sent (not
	// again after a reconnect), Acked those their mover saw in a game
	// message, MoveLatency is from sending a move to the opponent's
	// receiving it over a live connection, CreateLatency that of creating
	// the games, and Throughput counts the delivered moves.
	Online        bool
	Ramp          time.Duration
	ExpectRestart bool
	// Delivered counts the moves sent that reached the opponent, live or
	// DeliveredOnResync, in the first message of a new connection.
	Delivered, DeliveredOnResync int64
	Resent                       int64 // moves sent again after a reconnect
	ResendRefused                int64 // of which the server had taken the first (409)
	Reconnects                   int64 // connections opened again after a drop
	Resyncs                      int64 // first game messages after a reconnect
	Backwards                    int64 // resyncs to a rev or ply lower than seen
	Stale                        int64 // messages older than the client's game, or a move's seen twice: ignored
	Late                         int64 // moves first seen in the message of a later move
	Syncs                        int64 // games asked for again after a move message that did not follow
	// Lost counts the moves a seat had seen that the opponent never
	// received, or that the server replaced; Duplicated the moves in a
	// game that no client sent at that ply (a move applied twice).
	Lost, Duplicated int64
	Unanswered       int64 // moves sent that no one saw played or refused by the end
	// Disconnects counts the connections that dropped or could not be
	// opened, by kind; they fail the run unless ExpectRestart.
	Disconnects      map[string]int
	FirstDisconnects map[string]string
	EchoLatency      Latency // from sending a move to its mover's seeing it
	JoinLatency      Latency // of taking the second seat
	ConnectLatency   Latency // from dialling to the first game message
	// ReconnectGap is, for each connection that dropped, the time until
	// the next brought the game: how long its player was cut off.
	ReconnectGap Latency

	RequestLimit bool // the run stopped at MaxRequests
	Interrupted  bool // the context was cancelled; no check was made

	Check *CheckResult // nil without Config.Check
	Games []GameLog    // every game created, with its acknowledged moves
}

// ErrorCount is the number of failed requests.
func (r *Report) ErrorCount() int {
	n := 0
	for _, c := range r.Errors {
		n += c
	}
	return n
}

// Failed reports whether the run found a problem: a failed request, or
// with the check an acknowledged move or game missing, or a game that
// could not be checked.
func (r *Report) Failed() bool {
	return r.ErrorCount() > 0 || r.Check != nil && r.Check.Failed() ||
		r.Lost > 0 || r.Duplicated > 0 || !r.ExpectRestart && r.DisconnectCount() > 0
}

// DisconnectCount is the number of dropped or failed connections.
func (r *Report) DisconnectCount() int {
	n := 0
	for _, c := range r.Disconnects {
		n += c
	}
	return n
}

// Latency sums up latency samples; the percentiles are exact.
type Latency struct {
	N                        int
	P50, P90, P99, P999, Max time.Duration
}

// summarize sorts samples and reads their percentiles.
func summarize(samples []time.Duration) Latency {
	if len(samples) == 0 {
		return Latency{}
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	return Latency{
		N: len(s), P50: percentile(s, 0.50), P90: percentile(s, 0.90), P99: percentile(s, 0.99),
		P999: percentile(s, 0.999), Max: s[len(s)-1],
	}
}

// percentile is the nearest-rank q-quantile of sorted, which is not empty.
func percentile(sorted []time.Duration, q float64) time.Duration {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func (l Latency) String() string {
	if l.N == 0 {
		return "no samples"
	}
	return fmt.Sprintf("p50 %s, p90 %s, p99 %s, p99.9 %s, max %s", ms(l.P50), ms(l.P90), ms(l.P99), ms(l.P999), ms(l.Max))
}

// String returns the summary WriteTo writes.
func (r *Report) String() string {
	var b strings.Builder
	r.WriteTo(&b)
	return b.String()
}

// WriteTo writes a readable summary of the report, several lines.
func (r *Report) WriteTo(w io.Writer) (int64, error) {
	if r.Online {
		return r.writeOnline(w)
	}
	var b strings.Builder
	rate := "as fast as answered"
	switch {
	case r.Rate == 1:
		rate = "1 move/s each"
	case r.Rate > 0:
		rate = fmt.Sprintf("%g moves/s each", r.Rate)
	}
	fmt.Fprintf(&b, "load test of %s: %s games at once, %s, %d holes × %d seeds, %v\n",
		r.Target, group(int64(r.Concurrency)), rate, r.Holes, r.Seeds, r.Duration)
	fmt.Fprintf(&b, "  elapsed         %.1f s\n", r.Elapsed.Seconds())
	fmt.Fprintf(&b, "  games           %s created (%s requests), %s played to the end\n",
		group(r.GamesCreated), group(r.CreatesSent), group(r.GamesFinished))
	fmt.Fprintf(&b, "  moves           %s sent, %s acknowledged, %s/s\n",
		group(r.Offered), group(r.Acked), group(int64(math.Round(r.Throughput))))
	fmt.Fprintf(&b, "  move latency    %v\n", r.MoveLatency)
	fmt.Fprintf(&b, "  create latency  %v\n", r.CreateLatency)
	writeErrors(&b, "errors", r.Errors, r.FirstErrors)
	return r.writeEnd(w, &b)
}

// writeErrors writes a line of counts by kind, and each kind's first
// message.
func writeErrors(b *strings.Builder, label string, counts map[string]int, first map[string]string) {
	n := 0
	for _, c := range counts {
		n += c
	}
	if n == 0 {
		fmt.Fprintf(b, "  %-15s none\n", label)
		return
	}
	kinds := make([]string, 0, len(counts))
	for k := range counts {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s × %s", k, group(int64(counts[k])))
	}
	fmt.Fprintf(b, "  %-15s %s: %s\n", label, group(int64(n)), strings.Join(parts, ", "))
	for _, k := range kinds {
		fmt.Fprintf(b, "    first %s: %s\n", k, first[k])
	}
}

// writeOnline is WriteTo for an online run.
func (r *Report) writeOnline(w io.Writer) (int64, error) {
	var b strings.Builder
	rate := fmt.Sprintf("%g moves/s each", r.Rate)
	if r.Rate == 1 {
		rate = "1 move/s each"
	}
	ramp := ""
	if r.Ramp > 0 {
		ramp = fmt.Sprintf(", ramp %v", r.Ramp)
	}
	fmt.Fprintf(&b, "online load test of %s: %s games at once (2 clients each), %s, %d holes × %d seeds, %v%s\n",
		r.Target, group(int64(r.Concurrency)), rate, r.Holes, r.Seeds, r.Duration, ramp)
	fmt.Fprintf(&b, "  elapsed         %.1f s\n", r.Elapsed.Seconds())
	fmt.Fprintf(&b, "  games           %s created (%s requests), %s played to the end\n",
		group(r.GamesCreated), group(r.CreatesSent), group(r.GamesFinished))
	fmt.Fprintf(&b, "  moves           %s sent, %s acknowledged (echoed), %s delivered to the opponent (%s by a resync), %s/s\n",
		group(r.Offered), group(r.Acked), group(r.Delivered), group(r.DeliveredOnResync), group(int64(math.Round(r.Throughput))))
	fmt.Fprintf(&b, "  move→opponent   %v\n", r.MoveLatency)
	fmt.Fprintf(&b, "  move→echo       %v\n", r.EchoLatency)
	fmt.Fprintf(&b, "  create          %v\n", r.CreateLatency)
	fmt.Fprintf(&b, "  join            %v\n", r.JoinLatency)
	fmt.Fprintf(&b, "  connect         %v\n", r.ConnectLatency)
	if r.ReconnectGap.N > 0 {
		fmt.Fprintf(&b, "  reconnect gap   %v\n", r.ReconnectGap)
	}
	fmt.Fprintf(&b, "  connections     %s reconnects, %s resyncs (%s backwards), %s resent moves (%s already taken)\n",
		group(r.Reconnects), group(r.Resyncs), group(r.Backwards), group(r.Resent), group(r.ResendRefused))
	fmt.Fprintf(&b, "  messages        %s stale or repeated (ignored), %s moves first seen in a later move's message, %s games asked for again after a gap\n",
		group(r.Stale), group(r.Late), group(r.Syncs))
	if r.Lost == 0 && r.Duplicated == 0 {
		fmt.Fprintf(&b, "  lost            0, duplicated 0\n")
	} else {
		fmt.Fprintf(&b, "  lost            %s LOST, %s DUPLICATED\n", group(r.Lost), group(r.Duplicated))
	}
	if r.Unanswered > 0 {
		fmt.Fprintf(&b, "  unanswered      %s moves sent and never seen played nor refused\n", group(r.Unanswered))
	}
	writeErrors(&b, "errors", r.Errors, r.FirstErrors)
	writeErrors(&b, "disconnects", r.Disconnects, r.FirstDisconnects)
	if r.ExpectRestart && r.DisconnectCount() > 0 {
		fmt.Fprintf(&b, "    (a restart was expected: the disconnects do not fail the run)\n")
	}
	return r.writeEnd(w, &b)
}

// ms writes d in milliseconds with about three significant digits.
func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	switch {
	case v < 10:
		return fmt.Sprintf("%.2f ms", v)
	case v < 100:
		return fmt.Sprintf("%.1f ms", v)
	}
	return fmt.Sprintf("%s ms", group(int64(math.Round(v))))
}

// group writes n with thousands separated by commas, as the docs do.
func group(n int64) string {
	if n < 0 {
		return "-" + group(-n)
	}
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// writeEnd writes the lines that end every report, after b's, to w.
func (r *Report) writeEnd(w io.Writer, b *strings.Builder) (int64, error) {
	if r.RequestLimit {
		fmt.Fprintf(b, "  stopped early at the limit of %s requests\n", group(MaxRequests))
	}
	switch {
	case r.Interrupted:
		fmt.Fprintf(b, "  interrupted: no check\n")
	case r.Check != nil:
		fmt.Fprintf(b, "  check           %v\n", r.Check)
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}
