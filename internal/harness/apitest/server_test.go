package apitest

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// The server stores and serves objects, the kubeconfig it wrote reaches it
// as an admin, and when the test ends neither it nor its etcd runs and
// their files are gone.
func TestStartServesTheAPIAndStopLeavesNoProcess(t *testing.T) {
	var s *Server
	t.Run("server", func(t *testing.T) {
		started := time.Now()
		s = Start(t)
		t.Logf("kube-apiserver ready at %s after %s", s.URL, time.Since(started).Round(time.Millisecond))
		ns := s.Namespace(t, "apitest")

		cfg, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig)
		if err != nil {
			t.Fatalf("loading %s: %v", s.Kubeconfig, err)
		}
		viaFile, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "hello"}, Data: map[string]string{"k": "v"}}
		if _, err := viaFile.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating a ConfigMap through the kubeconfig: %v", err)
		}
		got, err := s.Client.CoreV1().ConfigMaps(ns).Get(ctx, "hello", metav1.GetOptions{})
		if err != nil || got.Data["k"] != "v" {
			t.Fatalf("reading it back: %v %v", got, err)
		}
		// RBAC is on: a user outside system:masters is refused.
		userCfg, err := clientcmd.BuildConfigFromFlags("", s.UserKubeconfig(t, "alice"))
		if err != nil {
			t.Fatal(err)
		}
		alice, err := kubernetes.NewForConfig(userCfg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = alice.CoreV1().ConfigMaps(ns).Get(ctx, "hello", metav1.GetOptions{})
		if !apierrors.IsForbidden(err) {
			t.Fatalf("alice read a ConfigMap: %v, want forbidden", err)
		}
	})
	if err := s.proc.Signal(syscall.Signal(0)); err == nil {
		t.Errorf("kube-apiserver pid %d still runs after the test ended", s.proc.Pid())
	}
	for _, dir := range []string{s.Dir, s.Etcd.Dir} {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s still exists after the test ended (%v)", dir, err)
		}
	}
}
