package resources

import (
	"strconv"
	"strings"
	"testing"
)

// Every minor from 1.31 to 1.37 has its row; another is refused with the
// range eggo deploys.
func TestMinorOf(t *testing.T) {
	for want := 31; want <= 37; want++ {
		m, err := MinorOf("1." + strconv.Itoa(want) + ".0")
		if err != nil || m.Minor != want || m.Pause == "" || m.Etcd == "" || m.CoreDNS == "" || m.ContainerdMajor == 0 {
			t.Errorf("1.%d: %+v, %v", want, m, err)
		}
	}
	for _, v := range []string{"1.30.9", "1.38.0", "2.31.0", "latest"} {
		if _, err := MinorOf(v); err == nil || !strings.Contains(err.Error(), "eggo deploys Kubernetes 1.31 to 1.37, not "+v) {
			t.Errorf("MinorOf(%q): %v", v, err)
		}
	}
	// containerd 1.6 runs Kubernetes up to 1.34; 1.35 on need containerd 2.
	if m, _ := MinorOf("1.34.4"); m.ContainerdMajor != 1 {
		t.Errorf("1.34's containerd: %d", m.ContainerdMajor)
	}
	if m, _ := MinorOf("v1.35.4"); m.ContainerdMajor != 2 {
		t.Errorf("1.35's containerd: %d", m.ContainerdMajor)
	}
}
