package e2e_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/eggo-project/eggo/internal/harness/nspawntest"
)

// apiPoll sends a real API request every 200 ms, in the background, and
// counts the answers other than 200: how a test sees whether the API kept
// serving while an apply ran.
//
// The requests go from the test process with the credentials and to the
// server of a kubeconfig on a host, each on a new connection, so the load
// balancer picks a server for each as it would for a new client. (They
// once ran kubectl on the host over a new SSH session each: ~90 ms of CPU a
// request, a tenth of the machine while three clusters rolled.)
type apiPoll struct {
	polls, failures atomic.Int64
	first           atomic.Value // the first failure: its error or status and body
	stop            chan struct{}
	wg              sync.WaitGroup
}

// pollAPI polls path (such as /api/v1/nodes/w0) with the kubeconfig at
// kubeconfig on host, at its server.
func pollAPI(t *testing.T, tb *nspawntest.Testbed, host, kubeconfig, path string) *apiPoll {
	t.Helper()
	client, server := kubeconfigClient(t, mustExec(t, tb, host, "cat "+kubeconfig))
	// A master's own kubeconfig names its apiserver at the loopback
	// address: the host's, from here.
	if u, err := url.Parse(server); err == nil && (u.Hostname() == "127.0.0.1" || u.Hostname() == "localhost") {
		u.Host = net.JoinHostPort(addresses(tb)[host], u.Port())
		server = u.String()
	}
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
			err := getOK(client, server+path)
			if err != nil {
				p.failures.Add(1)
				p.first.CompareAndSwap(nil, err.Error())
			}
			p.polls.Add(1)
		}
	}()
	return p
}

// kubeconfigClient is an HTTP client with a kubeconfig's CA and client
// certificate (the data it embeds), keeping no connection between
// requests, and the kubeconfig's server.
func kubeconfigClient(t *testing.T, kubeconfig string) (*http.Client, string) {
	t.Helper()
	cfg, err := clientcmd.RESTConfigFromKubeConfig([]byte(kubeconfig))
	if err != nil {
		t.Fatalf("the kubeconfig to poll the API with: %v", err)
	}
	tlsConfig, err := rest.TLSConfigFor(cfg)
	if err != nil {
		t.Fatalf("the kubeconfig's TLS settings: %v", err)
	}
	return &http.Client{
		Timeout:   10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: tlsConfig, DisableKeepAlives: true},
	}, cfg.Host
}

// getOK asks for url and wants 200.
func getOK(client *http.Client, url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%w at %s", err, time.Now().Format(time.TimeOnly))
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s at %s: %s", url, resp.Status, time.Now().Format(time.TimeOnly), body)
	}
	return nil
}

// Stop ends the polling and waits for the last request.
func (p *apiPoll) Stop() {
	close(p.stop)
	p.wg.Wait()
}
