package resources

import (
	"bufio"
	"debug/buildinfo"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// BundleProgramRelease is the release (such as "3.6.8") of a program the
// bundle carries for node n at rel, built from Go module module: what the
// bundle's MANIFEST says the file was built from (eggo's bundles name a
// module@version or a Debian package and its version on a "# from:" line),
// else the module's version in the program's Go build information (a
// bundle of the operator's own, with Go programs), else "" — eggo cannot
// tell. Read once per arch and file in a plan.
//
// A program that is not Kubernetes' (etcd, containerd) is versioned by its
// digest, which says whether it changed; the release says how far it moved,
// which an upgrade that must go one minor at a time needs.
func BundleProgramRelease(c *Cluster, n Node, rel, module string) string {
	return Shared(c, bundleRelease{NodeArch(n), rel, module}, func() string {
		arch := NodeArch(n)
		if r := manifestRelease(filepath.Join(c.Packages, "MANIFEST"), arch+"/"+rel); r != "" {
			return r
		}
		return buildInfoRelease(filepath.Join(c.Packages, arch, filepath.FromSlash(rel)), module)
	})
}

// bundleRelease keys Shared's release of an arch's bundle file.
type bundleRelease struct{ arch, rel, module string }

// manifestRelease reads the release of file (ARCH/PATH) from a MANIFEST's
// "# from: FILE SOURCE" line: "module@vX.Y.Z …" or "debian:PACKAGE VERSION".
func manifestRelease(manifest, file string) string {
	f, err := os.Open(manifest)
	if err != nil {
		return ""
	}
	defer f.Close()
	prefix := "# from: " + file + " "
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if src, ok := strings.CutPrefix(sc.Text(), prefix); ok {
			return SourceRelease(src)
		}
	}
	return ""
}

var moduleAtVersion = regexp.MustCompile(`^\S+@v?(\d+\.\d+\.\d+)\b`)

// SourceRelease is the upstream release a MANIFEST source names:
// "go.etcd.io/etcd/server/v3@v3.6.8 (…)" is 3.6.8, and "debian:containerd
// 1.6.20~ds1-1+deb12u3" is 1.6.20 (Debian's epoch, repack suffix and
// revision dropped); "" for anything else.
func SourceRelease(src string) string {
	if m := moduleAtVersion.FindStringSubmatch(src); m != nil {
		return m[1]
	}
	if rest, ok := strings.CutPrefix(src, "debian:"); ok {
		fields := strings.Fields(rest)
		if len(fields) < 2 {
			return ""
		}
		return upstreamRelease(fields[1])
	}
	return ""
}

var leadingRelease = regexp.MustCompile(`^(\d+\.\d+\.\d+)`)

// upstreamRelease is the X.Y.Z a Debian version starts with after its epoch.
func upstreamRelease(debian string) string {
	if _, after, ok := strings.Cut(debian, ":"); ok {
		debian = after
	}
	if m := leadingRelease.FindStringSubmatch(debian); m != nil {
		return m[1]
	}
	return ""
}

// buildInfoRelease is module's version in the Go program p's build
// information, as the main module or a dependency.
func buildInfoRelease(p, module string) string {
	info, err := buildinfo.ReadFile(p)
	if err != nil {
		return ""
	}
	version := ""
	if info.Main.Path == module {
		version = info.Main.Version
	}
	for _, d := range info.Deps {
		if d.Path == module {
			version = d.Version
		}
	}
	if m := leadingRelease.FindStringSubmatch(strings.TrimPrefix(version, "v")); m != nil {
		return m[1]
	}
	return ""
}
