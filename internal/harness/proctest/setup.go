package proctest

import (
	"fmt"
	"net"
	"os"
)

// Binary is the server binary a harness runs: path, or the environment
// variable env when it is set; the error says why it cannot run.
func Binary(path, env string) (string, error) {
	if b := os.Getenv(env); b != "" {
		path = b
	}
	_, err := os.Stat(path)
	return path, err
}

// portAttempts is how often RetryPortRace tries.
const portAttempts = 3

// RetryPortRace calls start until it succeeds, at most portAttempts
// times, and returns its last error: a free port can be taken by someone
// else between the probe and the server's bind, and a start on new ports
// is better than a failed test.
func RetryPortRace(start func() error) error {
	var err error
	for attempt := 1; attempt <= portAttempts; attempt++ {
		if err = start(); err == nil {
			return nil
		}
	}
	return err
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// LogTail is the end of a server's log file, at most limit bytes, for a
// failed start's message.
func LogTail(name, logFile string, limit int) string {
	data, _ := os.ReadFile(logFile)
	if len(data) > limit {
		data = data[len(data)-limit:]
	}
	return fmt.Sprintf("%s log %s:\n%s", name, logFile, data)
}
