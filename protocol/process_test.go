package protocol

import (
	"reflect"
	"strings"
	"testing"

	"github.com/endodoi/endodoi/rules"
)

func TestRulesOptions(t *testing.T) {
	std := rules.DefaultRules()
	cross := rules.Rules{Variant: rules.Cross, MaxLaps: rules.DefaultMaxLaps}
	capped := rules.Rules{Variant: rules.Standard, MaxLaps: 7}
	both := map[string]bool{"variant": true, "maxlaps": true}
	for _, tc := range []struct {
		name     string
		from, to rules.Rules
		declared map[string]bool
		want     []Command
		err      string // in the error, when one is wanted
	}{
		{"same", std, std, nil, nil, ""},
		{"unset laps are the default", std, rules.Rules{}, nil, nil, ""},
		{"variant", std, cross, both, []Command{SetOption{Name: "Variant", Value: "cross"}}, ""},
		{"laps", std, capped, both, []Command{SetOption{Name: "MaxLaps", Value: "7"}}, ""},
		{"both", capped, cross, both, []Command{SetOption{Name: "Variant", Value: "cross"}, SetOption{Name: "MaxLaps", Value: "1000"}}, ""},
		{"no variant option", std, cross, map[string]bool{"maxlaps": true}, nil, "no Variant option"},
		{"no laps option", std, capped, map[string]bool{"variant": true}, nil, "no MaxLaps option"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := RulesOptions(tc.from, tc.to, tc.declared)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("commands %v, want %v", got, tc.want)
			}
		})
	}
}
