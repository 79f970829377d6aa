package loadtest

import "testing"

func TestReportErr(t *testing.T) {
	for _, tc := range []struct {
		name string
		rep  Report
		want string // "" for no error
	}{
		{"sound", Report{Errors: map[string]int{}}, ""},
		{"interrupted, whatever else", Report{Interrupted: true, Lost: 3}, "interrupted"},
		{"check failed", Report{Check: &CheckResult{GamesChecked: 2, Lost: 1}, Lost: 1},
			"the check failed: 2 games checked: 1 acknowledged moves LOST, 0 games LOST"},
		{"check passed", Report{Check: &CheckResult{GamesChecked: 2}}, ""},
		{"lost", Report{Lost: 2}, "2 moves lost, 0 duplicated"},
		{"duplicated", Report{Duplicated: 1}, "0 moves lost, 1 duplicated"},
		{"online errors", Report{Online: true, Errors: map[string]int{"HTTP 503": 2, "timeout": 1}}, "3 errors"},
		{"failed requests", Report{Errors: map[string]int{"timeout": 4}}, "4 requests failed"},
		{"dropped", Report{Online: true, Disconnects: map[string]int{"reset": 2}},
			"2 connections dropped or refused (--expect-restart if the server was restarted on purpose)"},
		{"dropped, restart expected", Report{Online: true, ExpectRestart: true, Disconnects: map[string]int{"reset": 2}}, ""},
	} {
		err := tc.rep.Err()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want nil", tc.name, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		if (err != nil) != (tc.rep.Failed() || tc.rep.Interrupted) {
			t.Errorf("%s: Err %v, but Failed %t", tc.name, err, tc.rep.Failed())
		}
	}
}
