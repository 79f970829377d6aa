package egtb

// A certificate lets a proven value be checked again without trusting the
// run that found it. It names the databases the proof read, file by file
// with their SHA-256, and splits the proof one ply below the position:
//
//   - the lower bound: after one move, the value of the position it leads
//     to is at most so much for the side then to move (a claim "at-most");
//   - the upper bound: after every move, that value is at least so much
//     (a claim "at-least").
//
// A position's value is the best, over its moves, of the seeds a move
// captures less the value of the position it leads to (repetitions
// scoring 0, as the databases' values do); so the claims, if true, give the
// value at once, and Verify checks that arithmetic first. Each claim is
// then searched again on its own, a bounding test (Bounder.AtMost or
// AtLeast) deepened until it holds, by at most the depth written. The
// claims can be checked on several cores, or machines, at once; the
// databases themselves are checked by `endodoi egtb verify`.
//
// The file is text, one statement a line; blank lines and lines starting
// with # are comments:
//
//	endodoi certificate 1
//	position 4,4,4,4,4,4/4,4,4,4,4,4 s 0 0
//	rules standard 1000
//	value +8                      (South's view)
//	database 12 12376 5f3a09c1 <sha256 hex>   (seeds, entries, CRC-32C, SHA-256)
//	claim c at-most -6 depth 18   (after c, at most -6 for the side then to move)
//	claim a at-least -10 depth 17

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/endodoi/endodoi/rules"
)

// Certificate is a proof of a position's value that can be checked again
// (Verify).
type Certificate struct {
	Position rules.Position
	Rules    rules.Rules
	// Value is the proven value, from South's view.
	Value int
	// Files are the databases the proof read, by seed count from 0.
	Files []DatabaseFile
	// Claims bound the values of the positions one move on.
	Claims []Claim
}

// DatabaseFile identifies one count's database file.
type DatabaseFile struct {
	Seeds   int
	Entries uint64
	CRC     uint32   // CRC-32C of the values, as the file's header gives it
	SHA256  [32]byte // of the whole file
}

// Claim is a bound on the value of the position after Move, for the side
// to move there, that a bounding test proves at Depth.
type Claim struct {
	Move rules.Move
	// AtMost tells an upper bound (the test AtMost); otherwise a lower.
	AtMost bool
	Value  int
	Depth  int
}

// ClaimResult is a claim's test, as Certify or Verify ran it.
type ClaimResult struct {
	Claim   Claim
	Held    bool
	Nodes   uint64
	Elapsed time.Duration
}

func (c Claim) String() string {
	kind := "at-least"
	if c.AtMost {
		kind = "at-most"
	}
	return fmt.Sprintf("claim %s %s %s depth %d", c.Move, kind, Signed(c.Value), c.Depth)
}

// String is the report's line of a claim's test.
func (r ClaimResult) String() string {
	kind, held := "at least", "holds"
	if r.Claim.AtMost {
		kind = "at most"
	}
	if !r.Held {
		held = "does not hold"
	}
	return fmt.Sprintf("after %s, %s %s for the side to move: %s at depth %d (%d nodes, %v)",
		r.Claim.Move, kind, Signed(r.Claim.Value), held, r.Claim.Depth, r.Nodes, r.Elapsed.Round(time.Millisecond))
}

// CertifyOptions configure Certify and Verify.
type CertifyOptions struct {
	// TableMiB is each test's table (0: DefaultBoundsMiB); Workers the
	// tests run at once (0: one per core), each with its own table.
	TableMiB int
	Workers  int
	// MaxDepth bounds Certify's tests (0: maxBoundsDepth).
	MaxDepth int
	// First, if not empty, are moves to try first, in order, for the
	// lower bound's claim: the line the proof found best, say. The other
	// moves follow, the largest captures first.
	First []rules.Move
	// Progress, if not nil, receives each claim's test as it ends, and
	// each database file's check; it is called from one goroutine at a
	// time.
	Progress func(string)
	// Earlier, if not nil, is an unfinished certificate that an earlier
	// run of Certify saved (Save): its claims are not tested again, being
	// tested by Verify like every other. Certify fails if it is not of the
	// same position, rules, value and database files.
	Earlier *Certificate
	// Save, if not nil, receives the unfinished certificate each time a
	// claim holds, with the claims so far, for a later run's Earlier; it
	// is called from one goroutine at a time, and an error stops Certify.
	Save func(*Certificate) error
}

func (opt CertifyOptions) tableMiB() int {
	if opt.TableMiB <= 0 {
		return DefaultBoundsMiB
	}
	return opt.TableMiB
}

func (opt CertifyOptions) workers() int {
	if opt.Workers <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return opt.Workers
}

// child is a position one legal move on, and what the move captured.
type child struct {
	move rules.Move
	pos  rules.Position
	gain int
}

func children(p rules.Position, r rules.Rules) []child {
	var cs []child
	mover := p.ToMove()
	for j := range p.Holes() {
		m := rules.NewMove(mover, j)
		q, err := p.Play(m, r)
		if err != nil {
			continue
		}
		cs = append(cs, child{move: m, pos: q, gain: q.Captured(mover) - p.Captured(mover)})
	}
	return cs
}

// Certify proves again that v, for p's side to move, is p's value over the
// databases tb, one move deeper, and returns the certificate of that
// proof: for the lower bound, the first of p's moves (opt.First first,
// then the largest captures) after which a bounding test shows the opponent
// held to what v needs; for the upper bound, a test after every move. Each
// test deepens until it holds, up to opt.MaxDepth. It fails if one does
// not, or if p's value is not v.
func Certify(ctx context.Context, tb *Tablebase, p rules.Position, v int, opt CertifyOptions) (*Certificate, error) {
	if p.Holes() != tb.holes {
		return nil, ErrBeyond
	}
	files, err := tb.files(opt.Progress)
	if err != nil {
		return nil, err
	}
	cert := &Certificate{Position: p, Rules: tb.rules, Value: SouthValue(p, v), Files: files}
	if held, err := certainWithout(tb, p, v); held || err != nil {
		return cert, err
	}
	var earlier []Claim
	if e := opt.Earlier; e != nil {
		if err := cert.sameProof(e); err != nil {
			return nil, err
		}
		earlier = e.Claims
		if opt.Progress != nil && len(earlier) > 0 {
			opt.Progress(fmt.Sprintf("%d claims held in an earlier run, not tested again", len(earlier)))
		}
	}
	// done returns an earlier run's claim for m of that kind and value.
	done := func(m rules.Move, atMost bool, value int) (ClaimResult, bool) {
		for _, c := range earlier {
			if c.Move == m && c.AtMost == atMost && c.Value == value {
				return ClaimResult{Claim: c, Held: true}, true
			}
		}
		return ClaimResult{}, false
	}
	maxDepth := opt.MaxDepth
	if maxDepth <= 0 {
		maxDepth = maxBoundsDepth
	}
	cs := children(p, tb.rules)
	rank := func(m rules.Move) int {
		if i := slices.Index(opt.First, m); i >= 0 {
			return i
		}
		return len(opt.First)
	}
	slices.SortStableFunc(cs, func(a, b child) int {
		if ra, rb := rank(a.move), rank(b.move); ra != rb {
			return ra - rb
		}
		return b.gain - a.gain
	})
	// The upper bound's claims, one a move, and the lower bound's search
	// for a move that holds its claim, run as tasks on opt.Workers.
	var mu sync.Mutex // over opt.Progress, opt.Save and heldAt
	// heldAt is the depth at which each move's at-least claim held. A move
	// that falls short of the value holds it with room to spare, so
	// sooner; the best move's is the exact value, so the deepest.
	heldAt := map[rules.Move]int{}
	for _, c := range earlier {
		if !c.AtMost {
			heldAt[c.Move] = c.Depth
		}
	}
	type task struct {
		run func(context.Context) ([]ClaimResult, error)
	}
	var tasks []task
	for _, c := range cs {
		tasks = append(tasks, task{func(ctx context.Context) ([]ClaimResult, error) {
			if r, ok := done(c.move, false, c.gain-v); ok {
				return []ClaimResult{r}, nil
			}
			r, _, err := deepen(ctx, tb, c.pos, Claim{Move: c.move, Value: c.gain - v, Depth: maxDepth}, opt.tableMiB())
			if r.Held {
				mu.Lock()
				heldAt[c.move] = r.Claim.Depth
				mu.Unlock()
			}
			if err == nil && !r.Held {
				err = fmt.Errorf("after %s, no test to depth %d shows the value at least %s: %s may not be the value", c.move, maxDepth, Signed(c.gain-v), Signed(SouthValue(p, v)))
			}
			return []ClaimResult{r}, err
		}})
	}
	// The lower bound's claim: the moves are deepened together, in stages
	// of atMostStage more plies, so that no move whose value falls short is
	// searched to maxDepth before the one that holds. Each stage tries
	// first the moves whose at-least claims held deepest, or not yet, then
	// those whose tests came nearest to holding in the last stage (then
	// opt.First, then the largest captures).
	tasks = append(tasks, task{func(ctx context.Context) ([]ClaimResult, error) {
		for _, c := range cs {
			if r, ok := done(c.move, true, c.gain-v); ok {
				return []ClaimResult{r}, nil
			}
		}
		type candidate struct {
			child
			gap   int // how far its last test's result was from the claim
			nodes uint64
		}
		cands := make([]candidate, len(cs))
		for i, c := range cs {
			cands[i].child = c
		}
		for limit := min(atMostStage, maxDepth); ; limit = min(limit+atMostStage, maxDepth) {
			mu.Lock()
			held := func(m rules.Move) int {
				if d, ok := heldAt[m]; ok {
					return d
				}
				return maxDepth + 1
			}
			slices.SortStableFunc(cands, func(a, b candidate) int {
				if da, db := held(a.move), held(b.move); da != db {
					return db - da
				}
				return a.gap - b.gap
			})
			mu.Unlock()
			for i := range cands {
				c := &cands[i]
				claim := Claim{Move: c.move, AtMost: true, Value: c.gain - v, Depth: limit}
				r, result, err := deepen(ctx, tb, c.pos, claim, opt.tableMiB())
				c.nodes += r.Nodes
				r.Nodes = c.nodes
				if err != nil || r.Held {
					return []ClaimResult{r}, err
				}
				c.gap = result - claim.Value
				if opt.Progress != nil {
					mu.Lock()
					opt.Progress(r.String())
					mu.Unlock()
				}
			}
			if limit == maxDepth {
				break
			}
		}
		return nil, fmt.Errorf("after no move does a test to depth %d hold the opponent to what %s needs: %s may not be the value", maxDepth, Signed(SouthValue(p, v)), Signed(SouthValue(p, v)))
	}})
	sofar := *cert
	sofar.Claims = slices.Clone(earlier)
	results, err := runTasks(ctx, opt.workers(), len(tasks), func(ctx context.Context, i int) ([]ClaimResult, error) {
		rs, err := tasks[i].run(ctx)
		if err != nil {
			return rs, err
		}
		mu.Lock()
		defer mu.Unlock()
		fresh := false
		for _, r := range rs {
			if slices.Contains(sofar.Claims, r.Claim) {
				continue // an earlier run's
			}
			if opt.Progress != nil {
				opt.Progress(r.String())
			}
			sofar.Claims = append(sofar.Claims, r.Claim)
			fresh = true
		}
		if fresh && opt.Save != nil {
			if err := opt.Save(&sofar); err != nil {
				return rs, fmt.Errorf("saving the unfinished certificate: %w", err)
			}
		}
		return rs, nil
	})
	if err != nil {
		return nil, err
	}
	for _, r := range results {
		cert.Claims = append(cert.Claims, r.Claim)
	}
	slices.SortFunc(cert.Claims, func(a, b Claim) int {
		if a.Move != b.Move {
			return int(a.Move) - int(b.Move)
		}
		return b2i(b.AtMost) - b2i(a.AtMost)
	})
	return cert, cert.compose()
}

// sameProof reports, as an error, how the unfinished certificate e is not
// of cert's position, rules, value and database files.
func (cert *Certificate) sameProof(e *Certificate) error {
	const restart = "delete it to start again"
	switch {
	case e.Position != cert.Position:
		return fmt.Errorf("the unfinished certificate is of %s, not %s: %s", e.Position, cert.Position, restart)
	case e.Rules != cert.Rules:
		return fmt.Errorf("the unfinished certificate is under the rules %s, not %s: %s", e.Rules, cert.Rules, restart)
	case e.Value != cert.Value:
		return fmt.Errorf("the unfinished certificate proves %s, not %s: %s", Signed(e.Value), Signed(cert.Value), restart)
	case !slices.Equal(e.Files, cert.Files):
		return fmt.Errorf("the unfinished certificate was made over other databases than these: %s", restart)
	}
	return nil
}

// certainWithout reports whether p's value v needs no claim: p is in the
// databases, or has no legal move. It is an error if p's value is then not
// v.
func certainWithout(tb *Tablebase, p rules.Position, v int) (bool, error) {
	if w, err := tb.Value(p); err == nil {
		if w != v {
			return true, fmt.Errorf("the databases hold %s for the side to move, not %s", Signed(w), Signed(v))
		}
		return true, nil
	}
	if !p.HasLegalMove(tb.rules) {
		if w := -p.OnBoard(); w != v {
			return true, fmt.Errorf("the side to move has no move: the value is %s, not %s", Signed(w), Signed(v))
		}
		return true, nil
	}
	return false, nil
}

// deepen runs claim c's test on q (the position after c.Move) at depths 1
// to c.Depth, until it holds. It also returns the last test's result: when
// the claim did not hold, how near it came.
func deepen(ctx context.Context, tb *Tablebase, q rules.Position, c Claim, tableMiB int) (ClaimResult, int, error) {
	bd, err := tb.NewBounder(q, tableMiB)
	if err != nil {
		return ClaimResult{}, 0, err
	}
	began := time.Now()
	r := ClaimResult{Claim: c}
	result := 0
	for d := 1; d <= c.Depth; d++ {
		var ok bool
		var n uint64
		if c.AtMost {
			ok, result, n, err = bd.AtMost(ctx, d, c.Value)
		} else {
			ok, result, n, err = bd.AtLeast(ctx, d, c.Value)
		}
		r.Nodes += n
		r.Elapsed = time.Since(began)
		if err != nil {
			return r, result, err
		}
		if ok {
			r.Held, r.Claim.Depth = true, d
			return r, result, nil
		}
	}
	return r, result, nil
}

// atMostStage is the plies a stage of Certify's search for the lower
// bound's move deepens each move by.
const atMostStage = 8

// runTasks runs f(0) to f(n-1) on up to workers goroutines, and returns
// their results in order, or the first error (which stops the others).
func runTasks(parent context.Context, workers, n int, f func(context.Context, int) ([]ClaimResult, error)) ([]ClaimResult, error) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	out := make([][]ClaimResult, n)
	var mu sync.Mutex
	var first error
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(max(workers, 1), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				rs, err := f(ctx, i)
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					cancel()
					continue
				}
				out[i] = rs
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first == nil {
		first = parent.Err()
	}
	if first != nil {
		return nil, first
	}
	return slices.Concat(out...), nil
}

// compose checks that the claims, if true, make the value: that the
// position's value for its side to move, the best over its moves of the
// seeds captured less the value after the move, is at least Value by some
// move's at-most claim, and at most Value by every move's at-least claim.
func (cert *Certificate) compose() error {
	p, r := cert.Position, cert.Rules
	v := SouthValue(p, cert.Value)
	cs := children(p, r)
	if len(cs) == 0 {
		if len(cert.Claims) > 0 {
			return errors.New("the certificate makes claims after moves of a position that has none")
		}
		return nil
	}
	gain := map[rules.Move]int{}
	for _, c := range cs {
		gain[c.move] = c.gain
	}
	lower := false
	atLeast := map[rules.Move]int{}
	for _, c := range cert.Claims {
		g, ok := gain[c.Move]
		if !ok {
			return fmt.Errorf("%s: %s is not a legal move of %s", c, c.Move, p)
		}
		if c.AtMost {
			lower = lower || g-c.Value >= v
			continue
		}
		if w, seen := atLeast[c.Move]; !seen || c.Value > w {
			atLeast[c.Move] = c.Value
		}
	}
	if len(cert.Claims) == 0 {
		return nil // the databases hold the position: Verify probes them
	}
	if !lower {
		return fmt.Errorf("no at-most claim makes the value at least %s", Signed(cert.Value))
	}
	for _, c := range cs {
		w, ok := atLeast[c.move]
		if !ok {
			return fmt.Errorf("no at-least claim after %s: the value could be above %s", c.move, Signed(cert.Value))
		}
		if c.gain-w > v {
			return fmt.Errorf("after %s, at least %s for the opponent leaves the value possibly %s, above %s", c.move, Signed(w), Signed(SouthValue(p, c.gain-w)), Signed(cert.Value))
		}
	}
	return nil
}

// files identifies the databases' files, hashing each.
func (tb *Tablebase) files(progress func(string)) ([]DatabaseFile, error) {
	if tb.dir == "" {
		return nil, errors.New("egtb: a certificate needs databases read from files")
	}
	var fs []DatabaseFile
	for n := 0; n <= tb.max; n++ {
		f, err := hashFile(filepath.Join(tb.dir, FileName(tb.holes, n, tb.rules)))
		if err != nil {
			return nil, err
		}
		fs = append(fs, f)
		if progress != nil && f.Entries >= 100<<20 {
			progress(fmt.Sprintf("database of %d seeds: %d positions, SHA-256 %x", n, f.Entries, f.SHA256))
		}
	}
	return fs, nil
}

func hashFile(path string) (DatabaseFile, error) {
	h, err := ReadHeader(path)
	if err != nil {
		return DatabaseFile{}, err
	}
	f, err := os.Open(path)
	if err != nil {
		return DatabaseFile{}, err
	}
	defer f.Close()
	sum := sha256.New()
	if _, err := io.Copy(sum, f); err != nil {
		return DatabaseFile{}, fmt.Errorf("reading %s: %w", path, err)
	}
	d := DatabaseFile{Seeds: h.Seeds, Entries: h.Entries, CRC: h.CRC}
	sum.Sum(d.SHA256[:0])
	return d, nil
}

// CertificateReport is what VerifyCertificate found.
type CertificateReport struct {
	Claims  []ClaimResult
	Nodes   uint64
	Elapsed time.Duration
}

// VerifyCertificate checks cert over the databases in dir: that they are the files
// it names, that its claims make its value, and that each claim's test
// holds by its depth. A nil error means the value is proven again.
func VerifyCertificate(ctx context.Context, dir string, cert *Certificate, opt CertifyOptions) (CertificateReport, error) {
	began := time.Now()
	var rep CertificateReport
	if err := cert.compose(); err != nil {
		return rep, fmt.Errorf("the claims do not make the value: %w", err)
	}
	p := cert.Position
	tb, err := Open(dir, p.Holes(), cert.Rules)
	if err != nil {
		return rep, err
	}
	want := len(cert.Files) - 1
	if tb.max < want {
		return rep, fmt.Errorf("the certificate reads the databases to %d seeds; %s has them to %d", want, dir, tb.max)
	}
	// The same databases as the proof, not deeper ones.
	tb = newTablebase(tb.holes, want, tb.rules, tb.dir)
	files, err := tb.files(opt.Progress)
	if err != nil {
		return rep, err
	}
	for i, f := range files {
		if f != cert.Files[i] {
			return rep, fmt.Errorf("the database of %d seeds in %s is not the one the certificate names (SHA-256 %x, want %x)", i, dir, f.SHA256, cert.Files[i].SHA256)
		}
	}
	v := SouthValue(p, cert.Value)
	if len(cert.Claims) == 0 {
		held, err := certainWithout(tb, p, v)
		if err == nil && !held {
			err = errors.New("the certificate makes no claim, and the databases do not hold the position")
		}
		return rep, err
	}
	after := map[rules.Move]rules.Position{}
	for _, c := range children(p, cert.Rules) {
		after[c.move] = c.pos
	}
	var mu sync.Mutex
	rep.Claims, err = runTasks(ctx, opt.workers(), len(cert.Claims), func(ctx context.Context, i int) ([]ClaimResult, error) {
		c := cert.Claims[i]
		r, _, err := deepen(ctx, tb, after[c.Move], c, opt.tableMiB())
		if err == nil && !r.Held {
			err = fmt.Errorf("%s does not hold", c)
		}
		mu.Lock()
		defer mu.Unlock()
		rep.Nodes += r.Nodes
		if opt.Progress != nil && err == nil {
			opt.Progress(r.String())
		}
		return []ClaimResult{r}, err
	})
	rep.Elapsed = time.Since(began)
	return rep, err
}

// maxCertificateBytes bounds a certificate read: a few lines a move.
const maxCertificateBytes = 64 << 10

// WriteTo writes the certificate's text.
func (cert *Certificate) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "endodoi certificate 1\n")
	fmt.Fprintf(&b, "# %s is %s from South's view, over the databases below (check them with endodoi egtb verify)\n", cert.Position, Signed(cert.Value))
	fmt.Fprintf(&b, "position %s\nrules %s %d\nvalue %s\n", cert.Position, cert.Rules.Variant, cert.Rules.Laps(), Signed(cert.Value))
	fmt.Fprintf(&b, "# database <seeds> <positions> <CRC-32C of the values> <SHA-256 of the file>\n")
	for _, f := range cert.Files {
		fmt.Fprintf(&b, "database %d %d %08x %x\n", f.Seeds, f.Entries, f.CRC, f.SHA256)
	}
	if len(cert.Claims) > 0 {
		fmt.Fprintf(&b, "# claim <move> at-most|at-least <value after the move, for the side then to move> depth <test depth>\n")
	}
	for _, c := range cert.Claims {
		fmt.Fprintf(&b, "%s\n", c)
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

// Save writes the certificate's text to path, so that a half-written
// file is never left under its name.
func (cert *Certificate) Save(path string) error {
	return writeSynced(path, func(w io.Writer) error {
		_, err := cert.WriteTo(w)
		return err
	})
}

// ParseCertificate reads a certificate's text. It checks the form of each
// line and that the certificate is whole, not what it claims (Verify).
func ParseCertificate(r io.Reader) (*Certificate, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxCertificateBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxCertificateBytes {
		return nil, fmt.Errorf("certificate: longer than %d bytes", maxCertificateBytes)
	}
	cert := &Certificate{}
	var seen struct{ header, position, rules, value bool }
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		if err := cert.parseLine(text, &seen.header, &seen.position, &seen.rules, &seen.value); err != nil {
			return nil, fmt.Errorf("certificate line %d: %w", line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("certificate: %w", err)
	}
	switch {
	case !seen.header:
		return nil, errors.New("certificate: not an endodoi certificate (no first line \"endodoi certificate 1\")")
	case !seen.position || !seen.rules || !seen.value:
		return nil, errors.New("certificate: wants a position, rules and value line each")
	case len(cert.Files) == 0:
		return nil, errors.New("certificate: names no database")
	}
	if cert.Position.OnBoard() > MaxSeeds {
		return nil, fmt.Errorf("certificate: %d seeds on the board, more than %d", cert.Position.OnBoard(), MaxSeeds)
	}
	if t := cert.Position.Total(); cert.Value < -t || cert.Value > t {
		return nil, fmt.Errorf("certificate: value %s out of range", Signed(cert.Value))
	}
	for i, f := range cert.Files {
		if f.Seeds != i {
			return nil, fmt.Errorf("certificate: the databases are not listed 0, 1, 2, ... seeds (%d in place %d)", f.Seeds, i)
		}
		if f.Entries != Size(cert.Position.Holes(), f.Seeds) {
			return nil, fmt.Errorf("certificate: the database of %d seeds on %d holes a row has %d positions, not %d", f.Seeds, cert.Position.Holes(), Size(cert.Position.Holes(), f.Seeds), f.Entries)
		}
	}
	return cert, nil
}

// maxClaims bounds a certificate's claims: two a move at most.
const maxClaims = 2 * rules.MaxHoles

func (cert *Certificate) parseLine(text string, header, position, rulesSeen, value *bool) error {
	word, rest, _ := strings.Cut(text, " ")
	if !*header {
		if text != "endodoi certificate 1" {
			return fmt.Errorf("want \"endodoi certificate 1\" first, not %q", clip(text))
		}
		*header = true
		return nil
	}
	f := strings.Fields(rest)
	once := func(seen *bool) error {
		if *seen {
			return fmt.Errorf("a second %s line", word)
		}
		*seen = true
		return nil
	}
	switch word {
	case "position":
		if err := once(position); err != nil {
			return err
		}
		p, err := rules.ParsePosition(rest)
		if err != nil {
			return err
		}
		cert.Position = p
	case "rules":
		if err := once(rulesSeen); err != nil {
			return err
		}
		if len(f) != 2 {
			return errors.New("want: rules <variant> <lap cap>")
		}
		variant, err := rules.ParseVariant(f[0])
		if err != nil {
			return err
		}
		laps, err := strconv.Atoi(f[1])
		if err != nil {
			return fmt.Errorf("lap cap %q: %w", clip(f[1]), err)
		}
		r, err := rules.NewRules(variant, laps)
		if err != nil {
			return err
		}
		cert.Rules = r.Canonical()
	case "value":
		if err := once(value); err != nil {
			return err
		}
		v, err := parseValue(rest)
		if err != nil {
			return err
		}
		cert.Value = v
	case "database":
		if len(f) != 4 {
			return errors.New("want: database <seeds> <positions> <CRC-32C> <SHA-256>")
		}
		if len(cert.Files) > MaxSeeds {
			return errors.New("more databases than seed counts")
		}
		seeds, err1 := strconv.Atoi(f[0])
		entries, err2 := strconv.ParseUint(f[1], 10, 64)
		crc, err3 := strconv.ParseUint(f[2], 16, 32)
		sum, err4 := hex.DecodeString(f[3])
		if err := errors.Join(err1, err2, err3, err4); err != nil || len(sum) != sha256.Size {
			return fmt.Errorf("want: database <seeds> <positions> <CRC-32C in hex> <SHA-256 in hex>, not %q", clip(text))
		}
		d := DatabaseFile{Seeds: seeds, Entries: entries, CRC: uint32(crc)}
		copy(d.SHA256[:], sum)
		cert.Files = append(cert.Files, d)
	case "claim":
		if len(f) != 5 || f[3] != "depth" || (f[1] != "at-most" && f[1] != "at-least") {
			return fmt.Errorf("want: claim <move> at-most|at-least <value> depth <depth>, not %q", clip(text))
		}
		if len(cert.Claims) >= maxClaims {
			return fmt.Errorf("more than %d claims", maxClaims)
		}
		m, err := rules.ParseMove(f[0])
		if err != nil {
			return err
		}
		v, err := parseValue(f[2])
		if err != nil {
			return err
		}
		d, err := strconv.Atoi(f[4])
		if err != nil || d < 1 || d > maxBoundsDepth {
			return fmt.Errorf("depth %q: want 1 to %d", clip(f[4]), maxBoundsDepth)
		}
		cert.Claims = append(cert.Claims, Claim{Move: m, AtMost: f[1] == "at-most", Value: v, Depth: d})
	default:
		return fmt.Errorf("unknown statement %q", clip(word))
	}
	return nil
}

// parseValue reads a value as Signed writes it: 0, +n or -n.
func parseValue(s string) (int, error) {
	s = strings.TrimSpace(s)
	v, err := strconv.Atoi(s)
	if err != nil || v < -2*MaxSeeds*8 || v > 2*MaxSeeds*8 {
		return 0, fmt.Errorf("value %q: want a whole number of seeds such as +6, 0 or -4", clip(s))
	}
	return v, nil
}

// clip shortens text quoted in an error.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
