// Package enginesolve gives egtb.Solve the engine's search. It lives apart
// from both: egtb must not import engine, and engine takes the databases
// only through its Tablebase interface, so it need not import egtb.
package enginesolve

import (
	"context"

	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/rules"
)

// DefaultHashMiB is the transposition table of a solving search, which
// runs long: larger than engine.DefaultHashMiB.
const DefaultHashMiB = 256

// Search returns egtb.SolveOptions.Search for rules r: a fresh engine with
// tb's databases and a transposition table of hashMiB MiB (0:
// DefaultHashMiB) searches p without limits, until ctx is done or it
// proves p's value.
func Search(r rules.Rules, hashMiB int) func(ctx context.Context, tb *egtb.Tablebase, p rules.Position) (egtb.EngineResult, error) {
	if hashMiB == 0 {
		hashMiB = DefaultHashMiB
	}
	return func(ctx context.Context, tb *egtb.Tablebase, p rules.Position) (egtb.EngineResult, error) {
		cfg := engine.Config{Rules: r, HashMiB: hashMiB}
		if tb != nil { // a nil *Tablebase in the interface would not be nil
			cfg.Tablebase = tb
		}
		e, err := engine.New(cfg)
		if err != nil {
			return egtb.EngineResult{}, err
		}
		res, err := e.Search(ctx, p, nil, engine.Limits{}, nil)
		return egtb.EngineResult{Depth: res.Depth, Nodes: res.Nodes, Elapsed: res.Elapsed, Score: int(res.Score),
			ScoreText: res.Score.String(), Exact: res.Exact, PV: res.PV}, err
	}
}
