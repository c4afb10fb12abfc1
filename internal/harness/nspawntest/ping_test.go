package nspawntest

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// pingReply is who answered an ICMP echo: the target (an echo reply) or a
// router on the way whose TTL ran out (time exceeded), as traceroute sees it.
type pingReply struct {
	From         netip.Addr
	TimeExceeded bool
}

// pingFrom sends one ICMP echo with the given TTL and payload size, never
// fragmented, from inside network namespace netns (a node's or the
// router's), as ping would there: the nodes have no ping, nor has this
// machine.
func pingFrom(netns string, dst netip.Addr, ttl, size int) (pingReply, error) {
	type result struct {
		r   pingReply
		err error
	}
	done := make(chan result, 1)
	go func() {
		// Never unlocked: the thread, moved into netns, ends with this
		// goroutine instead of going back to the runtime.
		runtime.LockOSThread()
		f, err := os.Open(filepath.Join("/run/netns", netns))
		if err != nil {
			done <- result{err: err}
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			done <- result{err: fmt.Errorf("setns %s: %w", netns, err)}
			return
		}
		r, err := ping(dst, ttl, size)
		done <- result{r, err}
	}()
	res := <-done
	return res.r, res.err
}

func ping(dst netip.Addr, ttl, size int) (pingReply, error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_RAW, syscall.IPPROTO_ICMP)
	if err != nil {
		return pingReply{}, fmt.Errorf("icmp socket: %w", err)
	}
	defer syscall.Close(fd)
	tv := syscall.Timeval{Sec: 0, Usec: 200000}
	if err := errors.Join(
		syscall.SetsockoptInt(fd, syscall.IPPROTO_IP, syscall.IP_TTL, ttl),
		syscall.SetsockoptInt(fd, syscall.IPPROTO_IP, syscall.IP_MTU_DISCOVER, syscall.IP_PMTUDISC_DO),
		syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv),
	); err != nil {
		return pingReply{}, err
	}
	var idb [2]byte
	rand.Read(idb[:])
	id := binary.BigEndian.Uint16(idb[:])
	msg := make([]byte, 8+size)
	msg[0] = 8 // echo request
	binary.BigEndian.PutUint16(msg[4:], id)
	binary.BigEndian.PutUint16(msg[6:], 1)
	binary.BigEndian.PutUint16(msg[2:], icmpChecksum(msg))
	if err := syscall.Sendto(fd, msg, 0, &syscall.SockaddrInet4{Addr: dst.As4()}); err != nil {
		return pingReply{}, fmt.Errorf("send echo of %d bytes to %s: %w", size, dst, err)
	}
	buf := make([]byte, 65536)
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); {
		n, _, err := syscall.Recvfrom(fd, buf, 0)
		if err != nil {
			continue // the receive timeout: look at the clock again
		}
		if r, ok := parseICMP(buf[:n], id); ok {
			return r, nil
		}
	}
	return pingReply{}, fmt.Errorf("no answer from %s (ttl %d, %d bytes)", dst, ttl, size)
}

// parseICMP reads an IPv4 packet holding the answer to our echo: an echo
// reply with our id, or a time exceeded quoting our echo request.
func parseICMP(p []byte, id uint16) (pingReply, bool) {
	if len(p) < 20 {
		return pingReply{}, false
	}
	from := netip.AddrFrom4([4]byte(p[12:16]))
	icmp := p[int(p[0]&0x0f)*4:]
	if len(icmp) < 8 {
		return pingReply{}, false
	}
	switch icmp[0] {
	case 0: // echo reply
		return pingReply{From: from}, binary.BigEndian.Uint16(icmp[4:]) == id
	case 11: // time exceeded: the original IP header and 8 bytes follow
		inner := icmp[8:]
		if len(inner) < 20 {
			return pingReply{}, false
		}
		quoted := inner[int(inner[0]&0x0f)*4:]
		ok := len(quoted) >= 8 && quoted[0] == 8 && binary.BigEndian.Uint16(quoted[4:]) == id
		return pingReply{From: from, TimeExceeded: true}, ok
	}
	return pingReply{}, false
}

func icmpChecksum(b []byte) uint16 {
	var sum uint32
	for i := 0; i+1 < len(b); i += 2 {
		sum += uint32(binary.BigEndian.Uint16(b[i:]))
	}
	if len(b)%2 == 1 {
		sum += uint32(b[len(b)-1]) << 8
	}
	for sum > 0xffff {
		sum = sum>>16 + sum&0xffff
	}
	return ^uint16(sum)
}
