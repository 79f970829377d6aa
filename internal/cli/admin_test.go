package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/endodoi/endodoi/store"
)

// endodoi admin disables, enables and anonymises an account by its name.
func TestAdmin(t *testing.T) {
	ctx := context.Background()
	data, path := dbWithGames(t, 0)
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	a := &store.Account{Name: "Amina", Key: "amina"}
	if err := st.CreateAccount(ctx, a, nil, nil); err != nil {
		t.Fatal(err)
	}
	st.Close()
	status := func() string {
		t.Helper()
		st, err := store.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		got, err := st.Account(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got.Status + "/" + got.Name
	}
	for _, c := range []struct {
		args       []string
		code       int
		out, after string
	}{
		{[]string{"disable", "AMINA"}, 0, "account AMINA: disable done", "disabled/Amina"},
		{[]string{"enable", "amina"}, 0, "account amina: enable done", "/Amina"},
		{[]string{"frobnicate", "amina"}, 1, "unknown action", "/Amina"},
		{[]string{"disable", "nobody"}, 1, "not found", "/Amina"},
		{[]string{"disable"}, 2, "want an action", "/Amina"},
		{[]string{"anonymise", "amina"}, 0, "anonymise done", "deleted/"},
	} {
		code, out, errOut := run(t, "", append([]string{"admin", "--data", data}, c.args...)...)
		if code != c.code || !strings.Contains(out+errOut, c.out) {
			t.Errorf("admin %v: %d %q %q, want %d with %q", c.args, code, out, errOut, c.code, c.out)
		}
		if got := status(); got != c.after {
			t.Errorf("after admin %v: %q, want %q", c.args, got, c.after)
		}
	}
}
