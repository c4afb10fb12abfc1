package e2e_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/eggo-project/eggo/internal/harness/nspawntest"
)

// apiPoll runs a command on a host every 200 ms, in the background, and
// counts the answers other than want: how a test sees whether the API
// kept serving while an apply ran.
type apiPoll struct {
	polls, failures atomic.Int64
	first           atomic.Value // the first failure: its error and output
	stop            chan struct{}
	wg              sync.WaitGroup
}

func pollAPI(tb *nspawntest.Testbed, host, cmd, want string) *apiPoll {
	p := &apiPoll{stop: make(chan struct{})}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			select {
			case <-p.stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			out, err := tb.Exec(ctx, host, cmd)
			cancel()
			p.polls.Add(1)
			if err != nil || strings.TrimSpace(out) != want {
				p.failures.Add(1)
				p.first.CompareAndSwap(nil, fmt.Sprint(err, out))
			}
		}
	}()
	return p
}

// Stop ends the polling and waits for the last request.
func (p *apiPoll) Stop() {
	close(p.stop)
	p.wg.Wait()
}
