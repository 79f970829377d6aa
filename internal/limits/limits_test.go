package limits

import (
	"fmt"
	"net/netip"
	"testing"
	"time"
)

func TestRateLimiterForgetsIdleClients(t *testing.T) {
	l := NewLimiter(Rate{PerSecond: 1, Burst: 2})
	now := time.Now()
	for i := range MaxClients + 500 {
		l.Allow(netip.MustParsePrefix(fmt.Sprintf("10.%d.%d.%d/32", i>>16&255, i>>8&255, i&255)), now)
		now = now.Add(time.Millisecond)
	}
	if len(l.byIP) > MaxClients {
		t.Errorf("%d clients remembered, bound %d", len(l.byIP), MaxClients)
	}
}
