package egtb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/endodoi/endodoi/rules"
)

// certBoard is a board whose start is beyond small databases but within a
// complete solution: its databases to 4 seeds in a folder, and the true
// values of every position up to its start's seeds.
func certBoard(t *testing.T) (dir string, files *Tablebase, full *Tablebase) {
	t.Helper()
	dir = t.TempDir()
	var err error
	if files, err = Build(context.Background(), Options{Holes: 4, MaxSeeds: 4, Dir: dir}); err != nil {
		t.Fatal(err)
	}
	if files, err = Open(dir, 4, rules.Rules{}); err != nil {
		t.Fatal(err)
	}
	if full, err = Build(context.Background(), Options{Holes: 4, MaxSeeds: 16}); err != nil {
		t.Fatal(err)
	}
	return dir, files, full
}

// TestCertificate: a certificate of a position's true value verifies, read
// back from its text; one of a wrong value cannot be made; and a
// certificate altered in any part that matters, or checked over other
// databases, is refused.
func TestCertificate(t *testing.T) {
	dir, tb, full := certBoard(t)
	ctx := context.Background()
	opt := CertifyOptions{TableMiB: 1, Workers: 2, MaxDepth: 40}
	rng := rand.New(rand.NewPCG(5, 7))
	certified, claims := 0, 0
	var nodes uint64
	for range 12 {
		p := randomPosition(rng, 4, 12+rng.IntN(5))
		if !p.HasLegalMove(tb.rules) {
			continue
		}
		v, err := full.Value(p)
		if err != nil {
			t.Fatal(err)
		}
		cert, err := Certify(ctx, tb, p, v, opt)
		if err != nil {
			t.Fatalf("%s, value %d: %v", p, v, err)
		}
		var text bytes.Buffer
		if _, err := cert.WriteTo(&text); err != nil {
			t.Fatal(err)
		}
		back, err := ParseCertificate(bytes.NewReader(text.Bytes()))
		if err != nil {
			t.Fatalf("%s: %v\n%s", p, err, text.String())
		}
		rep, err := VerifyCertificate(ctx, dir, back, opt)
		if err != nil {
			t.Fatalf("%s: %v\n%s", p, err, text.String())
		}
		certified++
		claims += len(rep.Claims)
		nodes += rep.Nodes

		// A wrong value cannot be certified: some test never holds.
		if _, err := Certify(ctx, tb, p, v+2, opt); err == nil {
			t.Fatalf("%s: certified %d, its value is %d", p, v+2, v)
		}
		// Altered: the value, or a claim's bound made stronger than true.
		wrong := *back
		wrong.Value += 2
		if _, err := VerifyCertificate(ctx, dir, &wrong, opt); err == nil {
			t.Fatalf("%s: verified with the value changed to %d", p, wrong.Value)
		}
		for i, c := range back.Claims {
			bad := *back
			bad.Claims = append([]Claim(nil), back.Claims...)
			if c.AtMost {
				bad.Claims[i].Value = -p.Total() - 2
			} else {
				bad.Claims[i].Value = p.Total() + 2
			}
			if _, err := VerifyCertificate(ctx, dir, &bad, opt); err == nil {
				t.Fatalf("%s: verified with %s changed to %s", p, c, bad.Claims[i])
			}
			short := *back
			short.Claims = append(append([]Claim(nil), back.Claims[:i]...), back.Claims[i+1:]...)
			if !c.AtMost && short.compose() == nil {
				t.Fatalf("%s: the claims compose without %s", p, c)
			}
		}
	}
	t.Logf("%d positions certified, %d claims tested with %d nodes", certified, claims, nodes)
	if certified < 5 || nodes < 1000*uint64(certified) {
		t.Fatalf("only %d positions certified", certified)
	}

	// Over other databases: refused by their checksums.
	p := rules.MustParsePosition("2,1,0,3/1,0,2,1 s 0 0")
	v, _ := full.Value(p)
	cert, err := Certify(ctx, tb, p, v, opt)
	if err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	if _, err := Build(ctx, Options{Holes: 4, MaxSeeds: 4, Dir: other}); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(other, FileName(4, 3, rules.Rules{}))
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, 0) // a file that differs; its checksum does not match
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyCertificate(ctx, other, cert, opt); err == nil || !strings.Contains(err.Error(), "3 seeds") {
		t.Fatalf("verified over a damaged database: %v", err)
	}
	fewer := t.TempDir()
	if _, err := Build(ctx, Options{Holes: 4, MaxSeeds: 3, Dir: fewer}); err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyCertificate(ctx, fewer, cert, opt); err == nil {
		t.Fatal("verified over databases to fewer seeds than the certificate names")
	}
}

// TestCertificateOfAPositionTheDatabasesHold: no claims, the value probed.
func TestCertificateOfAPositionTheDatabasesHold(t *testing.T) {
	dir, tb, _ := certBoard(t)
	p := rules.MustParsePosition("1,0,2,0/0,0,0,1 s 0 0")
	v, err := tb.Value(p)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := Certify(context.Background(), tb, p, v, CertifyOptions{TableMiB: 1})
	if err != nil || len(cert.Claims) != 0 {
		t.Fatalf("%v, %d claims", err, len(cert.Claims))
	}
	if _, err := VerifyCertificate(context.Background(), dir, cert, CertifyOptions{TableMiB: 1}); err != nil {
		t.Fatal(err)
	}
	cert.Value += 2
	if _, err := VerifyCertificate(context.Background(), dir, cert, CertifyOptions{TableMiB: 1}); err == nil {
		t.Fatal("verified a wrong value of a position the databases hold")
	}
}

// TestCertificateResumes: a certificate's making stopped after a claim
// held goes on from the unfinished certificate it saved, testing only the
// claims still wanted, and makes the certificate one run makes; an
// unfinished certificate of another proof is refused.
func TestCertificateResumes(t *testing.T) {
	dir, tb, full := certBoard(t)
	p := rules.MustParsePosition("2,1,0,3/1,0,2,1 s 0 0")
	v, err := full.Value(p)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opt := CertifyOptions{TableMiB: 1, Workers: 1, MaxDepth: 40}
	whole, err := Certify(ctx, tb, p, v, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Claims) < 3 {
		t.Fatalf("only %d claims: want a position of more", len(whole.Claims))
	}

	// Stopped once the first claim is saved.
	stopped, stop := context.WithCancel(ctx)
	var saved *Certificate
	o := opt
	o.Save = func(c *Certificate) error {
		cp := *c
		cp.Claims = append([]Claim(nil), c.Claims...)
		saved = &cp
		stop()
		return nil
	}
	if _, err := Certify(stopped, tb, p, v, o); !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped: %v", err)
	}
	// A test already under way when it stops may still hold and be saved.
	if saved == nil || len(saved.Claims) == 0 || len(saved.Claims) >= len(whole.Claims) {
		t.Fatalf("saved %v, want some of %v", saved, whole.Claims)
	}
	// Read back as a file is, and gone on from.
	var text bytes.Buffer
	if _, err := saved.WriteTo(&text); err != nil {
		t.Fatal(err)
	}
	earlier, err := ParseCertificate(&text)
	if err != nil {
		t.Fatal(err)
	}
	tested := 0
	o = opt
	o.Earlier = earlier
	var again []string
	for _, c := range earlier.Claims {
		line, _, _ := strings.Cut(ClaimResult{Claim: c, Held: true}.String(), " at depth")
		again = append(again, line)
	}
	o.Progress = func(s string) {
		if strings.HasPrefix(s, "after ") && strings.Contains(s, ": holds at depth") {
			tested++
		}
		for _, line := range again {
			if strings.HasPrefix(s, line) {
				t.Errorf("tested again: %s", s)
			}
		}
	}
	saves := 0
	o.Save = func(c *Certificate) error {
		saves++
		for _, e := range earlier.Claims {
			if !slices.Contains(c.Claims, e) {
				t.Errorf("a save without the earlier claim %s", e)
			}
		}
		return nil
	}
	resumed, err := Certify(ctx, tb, p, v, o)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(resumed.Claims, whole.Claims) {
		t.Errorf("resumed claims %v, one run's %v", resumed.Claims, whole.Claims)
	}
	if left := len(whole.Claims) - len(earlier.Claims); tested != left || saves != left {
		t.Errorf("resumed: %d claims held and %d saves, for %d claims of which %d held before", tested, saves, len(whole.Claims), len(earlier.Claims))
	}
	if _, err := VerifyCertificate(ctx, dir, resumed, opt); err != nil {
		t.Fatal(err)
	}

	// Of another value, position or databases: refused.
	for _, alter := range []func(c *Certificate){
		func(c *Certificate) { c.Value += 2 },
		func(c *Certificate) { c.Position = rules.MustParsePosition("2,1,0,3/1,0,2,1 n 0 0") },
		func(c *Certificate) { c.Files = c.Files[:len(c.Files)-1] },
		func(c *Certificate) { c.Files[1].SHA256[0] ^= 1 },
	} {
		e := *earlier
		e.Files = append([]DatabaseFile(nil), earlier.Files...)
		alter(&e)
		o.Earlier = &e
		if _, err := Certify(ctx, tb, p, v, o); err == nil || !strings.Contains(err.Error(), "delete it to start again") {
			t.Errorf("an unfinished certificate of another proof: %v", err)
		}
	}
}

// TestCertificateLowerBoundInStages: a first move to try that falls short
// of the value is not searched to the tests' greatest depth before a move
// that holds: the moves are deepened together, a stage at a time.
func TestCertificateLowerBoundInStages(t *testing.T) {
	dir, tb, full := certBoard(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(11, 13))
	tried := 0
	for range 40 {
		p := randomPosition(rng, 4, 12+rng.IntN(5))
		v, err := full.Value(p)
		if err != nil || !p.HasLegalMove(tb.rules) {
			continue
		}
		if _, err := tb.Value(p); err == nil {
			continue
		}
		short := rules.NoMove
		for _, c := range children(p, tb.rules) {
			w, err := full.Value(c.pos)
			if err != nil {
				t.Fatal(err)
			}
			if c.gain-w < v {
				short = c.move
				break
			}
		}
		const maxDepth = 40
		if short == rules.NoMove {
			continue
		}
		if _, err := Certify(ctx, tb, p, v, CertifyOptions{TableMiB: 1, Workers: 2, MaxDepth: maxDepth}); err != nil {
			continue // a value these tests do not reach by maxDepth
		}
		deepest := 0
		opt := CertifyOptions{TableMiB: 1, Workers: 2, MaxDepth: maxDepth, First: []rules.Move{short},
			Progress: func(s string) {
				_, failed, ok := strings.Cut(s, "does not hold at depth ")
				var depth int
				if _, err := fmt.Sscanf(failed, "%d", &depth); ok && err == nil && strings.Contains(s, "at most") {
					deepest = max(deepest, depth)
				}
			}}
		cert, err := Certify(ctx, tb, p, v, opt)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		held := 0
		for _, c := range cert.Claims {
			if c.AtMost {
				held = c.Depth
			}
		}
		if deepest >= maxDepth || deepest > held+atMostStage {
			t.Errorf("%s: a move that falls short tested to depth %d, the claim held at %d", p, deepest, held)
		}
		if _, err := VerifyCertificate(ctx, dir, cert, CertifyOptions{TableMiB: 1}); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		tried++
	}
	if tried < 5 {
		t.Fatalf("only %d positions with a move that falls short", tried)
	}
}

func TestParseCertificateErrors(t *testing.T) {
	good := "endodoi certificate 1\nposition 1,0/0,1 s 0 0\nrules standard 1000\nvalue +2\n" +
		"database 0 1 00000000 " + strings.Repeat("00", 32) + "\n"
	if _, err := ParseCertificate(strings.NewReader(good)); err != nil {
		t.Fatalf("good certificate: %v", err)
	}
	for _, bad := range []string{
		"",
		"endodoi certificate 2\n",
		strings.Replace(good, "value +2", "value two", 1),
		strings.Replace(good, "value +2\n", "", 1),
		strings.Replace(good, "value +2", "value +2\nvalue +2", 1),
		strings.Replace(good, "rules standard 1000", "rules fancy 1000", 1),
		strings.Replace(good, "rules standard 1000", "rules standard -3", 1),
		strings.Replace(good, "database 0 1", "database 1 1", 1),
		strings.Replace(good, "database 0 1", "database 0 7", 1),
		strings.Replace(good, "00000000 ", "0000000g ", 1),
		good + "claim a at-most +2 depth 0\n",
		good + "claim z at-most +2 depth 3\n",
		good + "claim a at-best +2 depth 3\n",
		good + "frobnicate\n",
		good + strings.Repeat("# padding\n", maxCertificateBytes/10),
	} {
		if _, err := ParseCertificate(strings.NewReader(bad)); err == nil {
			t.Errorf("parsed %q", bad)
		}
	}
}

// FuzzParseCertificate: any text is parsed or refused with an error, and
// what parses writes back to text that parses to the same certificate.
func FuzzParseCertificate(f *testing.F) {
	f.Add("endodoi certificate 1\nposition 1,0/0,1 s 0 0\nrules standard 1000\nvalue +2\ndatabase 0 1 00000000 " +
		strings.Repeat("ab", 32) + "\nclaim a at-most -2 depth 3\nclaim a at-least -2 depth 4\n")
	f.Add("endodoi certificate 1\n# a comment\nvalue -4\n")
	f.Fuzz(func(t *testing.T, text string) {
		cert, err := ParseCertificate(strings.NewReader(text))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if _, err := cert.WriteTo(&out); err != nil {
			t.Fatal(err)
		}
		back, err := ParseCertificate(&out)
		if err != nil {
			t.Fatalf("%q parsed, its text %q did not: %v", text, out.String(), err)
		}
		if back.Position != cert.Position || back.Rules != cert.Rules || back.Value != cert.Value ||
			len(back.Files) != len(cert.Files) || len(back.Claims) != len(cert.Claims) {
			t.Fatalf("%q: read back as %+v, want %+v", text, back, cert)
		}
	})
}

// TestCheckpointResumes: a search stopped after a checkpoint resumes from
// it with the same table, and finds what one run without a stop finds; a
// checkpoint of another position, or a damaged one, is refused.
func TestCheckpointResumes(t *testing.T) {
	dir, tb, full := certBoard(t)
	ctx := context.Background()
	p := rules.MustParsePosition("3,0,2,1/2,1,0,3 s 0 0")
	want, _ := full.Value(p)

	whole, err := tb.NewBounder(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	stopped, err := tb.NewBounder(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	cpDir := filepath.Join(t.TempDir(), "cp")
	lo, hi := -p.OnBoard(), p.OnBoard()
	for d := 1; d <= 6; d++ {
		if lo, hi, _, err = stopped.Within(ctx, d, lo, hi); err != nil {
			t.Fatal(err)
		}
	}
	if err := SaveCheckpoint(cpDir, stopped, Checkpoint{Depth: 6, Lo: lo, Hi: hi}); err != nil {
		t.Fatal(err)
	}
	resumed, err := tb.NewBounder(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	// What a save killed midway leaves is cleared.
	killed := filepath.Join(cpDir, tableFile+".tmp123")
	os.WriteFile(killed, []byte("half a table"), 0o644)
	cp, err := LoadCheckpoint(cpDir, resumed)
	if _, serr := os.Stat(killed); serr == nil {
		t.Error("a killed save's temporary file was left")
	}
	if err != nil {
		t.Fatal(err)
	}
	if cp.Depth != 6 || cp.Lo != lo || cp.Hi != hi {
		t.Fatalf("checkpoint %+v, saved depth 6, bounds %d to %d", cp, lo, hi)
	}
	if !bytes.Equal(resumed.b.table.bytes(), stopped.b.table.bytes()) {
		t.Fatal("the table read back differs from the one saved")
	}
	for d := 7; d <= 12; d++ {
		wlo, whi, _, err := whole.Bounds(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		var n uint64
		if lo, hi, n, err = resumed.Within(ctx, d, lo, hi); err != nil {
			t.Fatal(err)
		}
		if lo != wlo || hi != whi || n == 0 {
			t.Fatalf("depth %d: resumed %d to %d, one run %d to %d", d, lo, hi, wlo, whi)
		}
	}

	// Refused: another position, another table size, a damaged table.
	other, _ := tb.NewBounder(rules.MustParsePosition("2,1,0,3/1,0,2,1 s 0 0"), 1)
	if _, err := LoadCheckpoint(cpDir, other); err == nil || !strings.Contains(err.Error(), "position") {
		t.Fatalf("another position's checkpoint: %v", err)
	}
	big, _ := tb.NewBounder(p, 2)
	if _, err := LoadCheckpoint(cpDir, big); err == nil || !strings.Contains(err.Error(), "--bounds-table 1") {
		t.Fatalf("another table size: %v", err)
	}
	if _, err := LoadCheckpoint(t.TempDir(), resumed); !errors.Is(err, ErrNoCheckpoint) {
		t.Fatalf("an empty folder: %v", err)
	}
	table := filepath.Join(cpDir, tableFile)
	data, _ := os.ReadFile(table)
	data[len(data)/2] ^= 0x40
	os.WriteFile(table, data, 0o644)
	if _, err := LoadCheckpoint(cpDir, resumed); err == nil {
		t.Fatal("a damaged table was read")
	}

	// Without its table, a checkpoint resumes cold, into a table of any
	// size, to the same bounds.
	os.Remove(table)
	cold, _ := tb.NewBounder(p, 2)
	cp, err = LoadCheckpoint(cpDir, cold)
	if err != nil || !cp.Cold || cp.Depth != 6 || cp.TableMiB != 2 {
		t.Fatalf("without its table: %+v, %v; want depth 6, cold, in a table of 2 MiB", cp, err)
	}
	lo, hi = cp.Lo, cp.Hi
	for d := 7; d <= 12; d++ {
		wlo, whi, _, err := whole.Bounds(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		if lo, hi, _, err = cold.Within(ctx, d, lo, hi); err != nil {
			t.Fatal(err)
		}
		if lo != wlo || hi != whi {
			t.Fatalf("depth %d, cold: %d to %d, one run %d to %d", d, lo, hi, wlo, whi)
		}
	}

	// Solve with a checkpoint: a second Solve resumes where the first
	// ended, with the same value and no search.
	never := func(ctx context.Context, tb *Tablebase, p rules.Position) (EngineResult, error) {
		<-ctx.Done()
		return EngineResult{Depth: 1}, nil
	}
	solveDir := filepath.Join(t.TempDir(), "solve")
	var bounds []Bound
	opt := SolveOptions{Dir: dir, Memory: 1, SearchTime: time.Minute, BoundsMiB: 1, Search: never,
		Checkpoint: solveDir, Bound: func(b Bound) { bounds = append(bounds, b) }}
	sol, err := Solve(ctx, p, opt)
	if err != nil || !sol.Solved || sol.Value != want {
		t.Fatalf("%+v, %v; want the value %d", sol, err, want)
	}
	bounds = nil
	sol, err = Solve(ctx, p, opt)
	if err != nil || !sol.Solved || sol.Value != want {
		t.Fatalf("resumed: %+v, %v; want the value %d", sol, err, want)
	}
	if len(bounds) != 1 || !bounds[0].Resumed || bounds[0].Cold || bounds[0].Lo != bounds[0].Hi {
		t.Fatalf("resumed: bounds %+v, want only the checkpoint's, with its table", bounds)
	}
	os.Remove(filepath.Join(solveDir, tableFile))
	bounds = nil
	if sol, err = Solve(ctx, p, opt); err != nil || !sol.Solved || sol.Value != want {
		t.Fatalf("resumed without the table: %+v, %v; want the value %d", sol, err, want)
	}
	if len(bounds) != 1 || !bounds[0].Resumed || !bounds[0].Cold || !strings.Contains(bounds[0].String(), "table not found") {
		t.Fatalf("resumed without the table: bounds %+v, want the checkpoint's, cold", bounds)
	}
}

// TestPublishedCertificates: the certificates of docs/certificates are
// well formed, name a database for every count up to their largest, and
// their claims make their values (checking the claims themselves needs the
// databases: endodoi solve --verify).
func TestPublishedCertificates(t *testing.T) {
	paths, err := filepath.Glob("../docs/certificates/*.cert")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no certificate in docs/certificates")
	}
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		cert, err := ParseCertificate(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if err := cert.compose(); err != nil {
			t.Errorf("%s: %v", path, err)
		}
		if len(cert.Claims) == 0 {
			t.Errorf("%s: no claims", path)
		}
		// Named for its board: 2xHxS.cert.
		if want := fmt.Sprintf("2x%dx%d.cert", cert.Position.Holes(), cert.Position.Total()/(2*cert.Position.Holes())); filepath.Base(path) != want {
			t.Errorf("%s holds the start of another board (%s)", path, want)
		}
	}
}

// TestPublishedCheckpoints: the descriptions of long searches kept in
// docs/checkpoints are checkpoints this program resumes (cold:
// their tables are not kept there), each of a position with its databases
// and bounds that make sense.
func TestPublishedCheckpoints(t *testing.T) {
	paths, err := filepath.Glob("../docs/checkpoints/*/" + checkpointFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no checkpoint in docs/checkpoints")
	}
	for _, path := range paths {
		cp, err := readCheckpoint(filepath.Dir(path))
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		p := rules.MustParsePosition(cp.Position) // read already
		switch {
		case cp.Databases.Holes != p.Holes() || len(cp.Databases.CRCs) == 0:
			t.Errorf("%s: databases of %d holes (%d counts) for a board of %d", path, cp.Databases.Holes, len(cp.Databases.CRCs), p.Holes())
		case cp.Depth < 1:
			t.Errorf("%s: depth %d", path, cp.Depth)
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(path), tableFile)); err == nil {
			t.Errorf("%s: a table beside it (gigabytes): keep the description alone", path)
		}
	}
}

// TestCheckpointOverDeeperDatabases: a checkpoint made over databases of
// fewer counts resumes over deeper ones (the same up to its largest),
// cold, from its depth and bounds, to bounds that hold; the next save
// describes the deeper databases. One made over deeper databases, or over
// others, is refused.
func TestCheckpointOverDeeperDatabases(t *testing.T) {
	_, tb, full := certBoard(t) // counts to 4 seeds
	ctx := context.Background()
	p := rules.MustParsePosition("3,0,2,1/2,1,0,3 s 0 0")
	want, _ := full.Value(p)

	shallowDir := t.TempDir()
	if _, err := Build(ctx, Options{Holes: 4, MaxSeeds: 3, Dir: shallowDir}); err != nil {
		t.Fatal(err)
	}
	shallow, err := Open(shallowDir, 4, rules.Rules{})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := shallow.NewBounder(p, 1)
	lo, hi := -p.OnBoard(), p.OnBoard()
	for d := 1; d <= 6; d++ {
		if lo, hi, _, err = before.Within(ctx, d, lo, hi); err != nil {
			t.Fatal(err)
		}
	}
	cpDir := filepath.Join(t.TempDir(), "cp")
	if err := SaveCheckpoint(cpDir, before, Checkpoint{Depth: 6, Lo: lo, Hi: hi, Nodes: 10}); err != nil {
		t.Fatal(err)
	}

	deeper, _ := tb.NewBounder(p, 1)
	cp, err := LoadCheckpoint(cpDir, deeper)
	if err != nil {
		t.Fatalf("over databases of one count more: %v", err)
	}
	if !cp.Cold || !cp.Deeper || cp.Depth != 6 || cp.Lo != lo || cp.Hi != hi {
		t.Fatalf("over deeper databases: %+v, want cold, depth 6, bounds %d to %d", cp, lo, hi)
	}
	b := Bound{Depth: cp.Depth, Resumed: true, Cold: cp.Cold, Deeper: cp.Deeper, Lo: lo, Hi: hi}
	if !strings.Contains(b.String(), "fewer seeds") {
		t.Errorf("the resumption reads %q", b.String())
	}
	for d := 7; d <= 10; d++ {
		if lo, hi, _, err = deeper.Within(ctx, d, lo, hi); err != nil {
			t.Fatal(err)
		}
		if lo > want || hi < want {
			t.Fatalf("depth %d over the deeper databases: %d to %d, the value is %d", d, lo, hi, want)
		}
	}
	if err := SaveCheckpoint(cpDir, deeper, Checkpoint{Depth: 10, Lo: lo, Hi: hi, Nodes: cp.Nodes}); err != nil {
		t.Fatal(err)
	}
	saved, err := readCheckpoint(cpDir)
	if err != nil || len(saved.Databases.CRCs) != 5 {
		t.Fatalf("saved over the deeper databases: %+v, %v; want 5 counts described", saved.Databases, err)
	}

	// Refused: the checkpoint, now over 5 counts, over the 4 of before;
	// and one whose counts differ.
	again, _ := shallow.NewBounder(p, 1)
	if _, err := LoadCheckpoint(cpDir, again); err == nil || !strings.Contains(err.Error(), "other databases") {
		t.Fatalf("over databases of fewer counts than it was made over: %v", err)
	}
	saved.Databases.CRCs[2]++
	data, _ := json.Marshal(saved)
	if err := os.WriteFile(filepath.Join(cpDir, checkpointFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCheckpoint(cpDir, deeper); err == nil || !strings.Contains(err.Error(), "other databases") {
		t.Fatalf("over databases whose count of 2 seeds differs: %v", err)
	}
}
