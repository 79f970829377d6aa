package store

import (
	"testing"

	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/play/storetest"
)

// TestPlayStore: both engines keep play's promises, as the store in
// memory does (play/storetest).
func TestPlayStore(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() Store) {
		storetest.Run(t, func(*testing.T) play.Store { return open() })
	})
}
