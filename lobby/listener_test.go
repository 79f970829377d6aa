package lobby

import (
	"encoding/json"
	"testing"
)

// A connection hears the events told to its account or to all, sees its
// own seeks as its own, and not those of the accounts it hides; a block
// sends it the players it may still see.
func TestListenerHears(t *testing.T) {
	amina := &Listener{Account: "a", Hears: func(id string) bool { return id == "a" }}
	visitor := &Listener{}
	seek := Event{Kind: "seek", Seek: &SeekView{ID: "s1"}, Owner: "a"}
	var m struct {
		Type    string
		Seek    SeekView
		Players []Present
	}
	decode := func(b []byte) bool {
		m.Type, m.Seek, m.Players = "", SeekView{}, nil
		return b != nil && json.Unmarshal(b, &m) == nil
	}
	if !decode(amina.Hear(seek, nil)) || m.Type != "seek" || !m.Seek.Mine {
		t.Errorf("the owner hears its seek as %+v", m)
	}
	if !decode(visitor.Hear(seek, nil)) || m.Seek.Mine {
		t.Errorf("a visitor hears the seek as %+v", m)
	}
	if msg := visitor.Hear(Event{To: "a", Kind: "paired", Game: "g", Side: "s"}, nil); msg != nil {
		t.Errorf("a visitor hears another's pairing: %s", msg)
	}
	players := []Present{{Name: "Amina", ID: "a"}, {Name: "Baraka", ID: "b"}}
	baraka := &Listener{Account: "b", Hears: func(id string) bool { return id == "b" }}
	if !decode(baraka.Hear(Event{To: "b", Kind: "hide", Account: "a"}, players)) || m.Type != "players" || len(m.Players) != 0 {
		t.Errorf("after hiding Amina, Baraka is told %+v", m)
	}
	if msg := baraka.Hear(seek, players); msg != nil {
		t.Errorf("Baraka hears the seek of an account he hides: %s", msg)
	}
	baraka.Hide(map[string]bool{})
	if msg := baraka.Hear(seek, players); msg == nil {
		t.Error("Baraka does not hear the seek once nobody is hidden")
	}
}
