package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/internal/enginesolve"
	"github.com/endodoi/endodoi/internal/terminal"
	"github.com/endodoi/endodoi/rules"
)

// defaultSolveMemory is the memory, in GiB, a complete solution may take
// before solve searches instead.
const defaultSolveMemory = 10

// maxBoundsMiB caps solve's --bounds-table: twice it, with the engine's
// largest table, still fits a machine with 64 GiB.
const maxBoundsMiB = 16 << 10

var solveCommand = &command{
	name:    "solve",
	summary: "find the game-theoretic value of a start or position with best play on both sides",
	usage: "[--egtb DIR] [--memory GiB] [--time D] [--hash MiB] [--bounds-table MiB] [--checkpoint DIR] [--certificate FILE] [--engine=false] [--variant V] [--max-laps L] <holes> <seeds> | <position>\n" +
		"       endodoi solve --verify FILE [--egtb DIR] [--bounds-table MiB] [--workers W]",
	examples: []string{
		"endodoi solve 3 3",
		"endodoi solve --variant cross 4 2",
		"endodoi solve '2,0,1/1,1,0 s 0 0'",
		"endodoi solve --egtb egtb --time 10m 6 4",
		"endodoi solve --egtb egtb --time 10m --certificate 6x4.cert 6 4",
		"endodoi solve --egtb egtb --verify 6x4.cert",
		"endodoi solve --egtb egtb --time 8h --checkpoint 8x4.checkpoint --bounds-table 4096 8 4",
	},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		var rf rulesFlags
		rf.register(fs)
		dir := fs.String("egtb", "", "directory of endgame databases to read (and, for a complete solution, to write)")
		memory := fs.Float64("memory", defaultSolveMemory, "GiB a complete solution may use; beyond it, search from the position with the databases")
		searchTime := fs.Duration("time", time.Minute, "how long to search when a complete solution does not fit")
		workers := fs.Int("workers", 0, "worker goroutines (default: one per core)")
		hash := fs.Int("hash", enginesolve.DefaultHashMiB, fmt.Sprintf("MiB of the engine search's transposition table when searching (1 to %d): more helps a long search", engine.MaxHashMiB))
		boundsMiB := fs.Int("bounds-table", egtb.DefaultBoundsMiB, fmt.Sprintf("MiB of the bounding search's table when searching (1 to %d), twice that while it tests the engine's value", maxBoundsMiB))
		quiet := fs.Bool("quiet", false, "no progress bar")
		checkpoint := fs.String("checkpoint", "", "when searching, a folder where the bounding search saves its progress (every minute and at the end) and from which a later run of the same position resumes")
		certificate := fs.String("certificate", "", "once the value is proven, prove it again one move deeper and write the proof's certificate to this file, for --verify; the claims that hold are kept in FILE.partial until it is whole, and the same command goes on from them")
		withEngine := fs.Bool("engine", true, "when searching, run the engine's search beside the bounding search (a second proof when it proves the value); --engine=false gives both cores to the bounds, the lower and the upper side by side")
		verify := fs.String("verify", "", "check the certificate in this file over the databases of --egtb (default egtb) instead of solving")
		return func(ctx context.Context, env Env, args []string) error {
			var p rules.Position
			var err error
			if *workers < 0 {
				return usagef("--workers %d: want 0 (one per core) or more", *workers)
			}
			if err := inRange("bounds-table", *boundsMiB, 1, maxBoundsMiB); err != nil {
				return err
			}
			if *verify != "" {
				if len(args) > 0 || *certificate != "" || *checkpoint != "" {
					return usagef("--verify takes no position, --certificate or --checkpoint: the certificate names its position")
				}
				return verifyCertificate(ctx, env.Stdout, *verify, *dir, egtb.CertifyOptions{TableMiB: *boundsMiB, Workers: *workers})
			}
			if len(args) == 0 {
				return usagef("want a board (holes a row and seeds a hole) or a position")
			}
			if len(args) == 2 {
				h, errH := strconv.Atoi(args[0])
				s, errS := strconv.Atoi(args[1])
				if errH == nil && errS == nil {
					if p, err = rules.NewPosition(h, s); err != nil {
						return usagef("%v", err)
					}
					args = nil
				}
			}
			if args != nil {
				if p, err = positionOperand(args); err != nil {
					return err
				}
			}
			r, err := rf.rules()
			if err != nil {
				return err
			}
			if *memory <= 0 {
				return usagef("--memory %v: want a positive number of GiB", *memory)
			}
			if *searchTime <= 0 {
				return usagef("--time %v: want a positive duration", *searchTime)
			}
			if err := inRange("hash", *hash, 1, engine.MaxHashMiB); err != nil {
				return err
			}
			if *certificate != "" && *dir == "" {
				return usagef("--certificate needs --egtb DIR: a certificate names the database files its proof read")
			}
			progress := unlessQuiet(env.Stderr, *quiet)
			opt := egtb.SolveOptions{Rules: r, Dir: *dir, Memory: *memory * (1 << 30), SearchTime: *searchTime, Workers: *workers,
				BoundsMiB: *boundsMiB, Checkpoint: *checkpoint}
			if *withEngine {
				opt.Search = enginesolve.Search(r, *hash)
			}
			return solve(ctx, env.Stdout, progress, p, opt, *certificate)
		}
	},
}

func solve(ctx context.Context, w, progress io.Writer, p rules.Position, opt egtb.SolveOptions, certificate string) error {
	ctx, stop := interruptible(ctx)
	defer stop()
	egtb.WriteSolvePlan(w, p, opt)
	bar := terminal.NewProgressBar(progress)
	opt.Progress = func(pr egtb.Progress) { bar.Draw(pr.String(), pr.Done, pr.Total, pr.Elapsed) }
	opt.Bound = func(b egtb.Bound) { fmt.Fprintln(w, b) }
	sol, err := egtb.Solve(ctx, p, opt)
	bar.End()
	switch {
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("interrupted")
	case err != nil:
		return err
	}
	if certificate != "" && sol.Solved {
		if err := certify(ctx, w, certificate, p, sol, opt); err != nil {
			sol.Write(w, p, opt)
			return err
		}
	}
	sol.Write(w, p, opt)
	return nil
}

// certify proves sol's value of p again one move deeper over the
// databases of opt.Dir, and writes the proof's certificate to path.
func certify(ctx context.Context, w io.Writer, path string, p rules.Position, sol egtb.Solution, opt egtb.SolveOptions) error {
	tb := sol.Databases
	if tb == nil || tb.Dir() == "" {
		var err error
		if tb, err = egtb.Open(opt.Dir, p.Holes(), opt.Rules); err != nil {
			return fmt.Errorf("the certificate: %w", err)
		}
	}
	copt := egtb.CertifyOptions{TableMiB: opt.BoundsMiB, Workers: opt.Workers, Progress: func(s string) { fmt.Fprintln(w, "certificate:", s) }}
	if sol.Bounds.Depth > 0 {
		// The tests one move deeper need about the depth the proof did.
		copt.MaxDepth = sol.Bounds.Depth + 8
	}
	if len(sol.PV) > 0 {
		copt.First = append(copt.First, sol.PV[0])
	}
	if sol.Best != rules.NoMove {
		copt.First = append(copt.First, sol.Best)
	}
	// The claims that held so far are kept beside it, so that a run
	// stopped goes on from them.
	partial := path + ".partial"
	earlier, err := readUnfinishedCertificate(partial)
	if err != nil {
		return fmt.Errorf("the certificate: %w", err)
	}
	if earlier != nil {
		fmt.Fprintf(w, "certificate: going on from the unfinished certificate %s\n", partial)
	}
	copt.Earlier = earlier
	copt.Save = func(c *egtb.Certificate) error { return c.Save(partial) }
	began := time.Now()
	cert, err := egtb.Certify(ctx, tb, p, sol.Value, copt)
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("interrupted while making the certificate; the claims that held are in %s, and the same command goes on from them", partial)
	}
	if err != nil {
		return fmt.Errorf("the certificate: %w", err)
	}
	if err := cert.Save(path); err != nil {
		return fmt.Errorf("the certificate: %w", err)
	}
	if err := os.Remove(partial); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("the certificate: %w", err)
	}
	fmt.Fprintf(w, "certificate: %s, %d claims, made in %v; check it with: endodoi solve --egtb %s --verify %s\n",
		path, len(cert.Claims), time.Since(began).Round(time.Millisecond), tb.Dir(), path)
	return nil
}

// readUnfinishedCertificate reads the unfinished certificate an earlier
// run saved at path, or returns nil if there is none.
func readUnfinishedCertificate(path string) (*egtb.Certificate, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cert, err := egtb.ParseCertificate(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (delete it to start again)", path, err)
	}
	return cert, nil
}

// verifyCertificate checks the certificate in path over the databases in
// dir and reports each claim's test and the result.
func verifyCertificate(ctx context.Context, w io.Writer, path, dir string, opt egtb.CertifyOptions) error {
	ctx, stop := interruptible(ctx)
	defer stop()
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	cert, err := egtb.ParseCertificate(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if dir == "" {
		dir = egtb.DefaultDir
	}
	p := cert.Position
	fmt.Fprintf(w, "certificate: %s\nposition: %s\nboard: %d holes a row, %d seeds on the board, %s\nclaimed value: %s, over the databases to %d seeds\n",
		path, p, p.Holes(), p.OnBoard(), cert.Rules, egtb.Signed(cert.Value), len(cert.Files)-1)
	opt.Progress = func(s string) { fmt.Fprintln(w, s) }
	rep, err := egtb.VerifyCertificate(ctx, dir, cert, opt)
	switch {
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("interrupted")
	case err != nil:
		return fmt.Errorf("the certificate does not hold: %w", err)
	}
	fmt.Fprintf(w, "%d claims checked, %d nodes, %v\n", len(rep.Claims), rep.Nodes, rep.Elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "result: %s (over these databases; check them with: endodoi egtb verify --holes %d --dir %s)\n",
		egtb.Describe(p, egtb.SouthValue(p, cert.Value)), p.Holes(), dir)
	fmt.Fprintf(w, "verified %s\n", egtb.Signed(cert.Value))
	return nil
}
