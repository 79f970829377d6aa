package memory

import (
	"testing"

	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/play/storetest"
)

var _ play.Store = (*Store)(nil)

func TestStore(t *testing.T) {
	storetest.Run(t, func(*testing.T) play.Store { return New() })
}
