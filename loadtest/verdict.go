package loadtest

import (
	"errors"
	"fmt"
)

// Err says why the run failed, in the order a reader of the report looks
// for it: an interruption, a failed check, lost or duplicated moves,
// failed requests (online: errors of any kind), then connections dropped
// or refused when no restart was expected. It returns nil when the run
// found no problem (Failed is false), so that a script can rely on the
// exit status of a run.
func (r *Report) Err() error {
	switch {
	case r.Interrupted:
		return errors.New("interrupted")
	case r.Check != nil && r.Check.Failed():
		return fmt.Errorf("the check failed: %v", r.Check)
	case r.Lost > 0 || r.Duplicated > 0:
		return fmt.Errorf("%d moves lost, %d duplicated", r.Lost, r.Duplicated)
	case r.Online && r.ErrorCount() > 0:
		return fmt.Errorf("%d errors", r.ErrorCount())
	case r.ErrorCount() > 0:
		return fmt.Errorf("%d requests failed", r.ErrorCount())
	case r.Failed():
		return fmt.Errorf("%d connections dropped or refused (--expect-restart if the server was restarted on purpose)", r.DisconnectCount())
	}
	return nil
}
