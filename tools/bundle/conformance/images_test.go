package conformance

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The recipes of scripts/conformance-images.sh: the labels of build_one's
// `case $kind in`, one image name (the reference's last path element) or
// several joined by " | ".
var scriptRecipe = regexp.MustCompile(`(?m)^  ([a-z0-9-]+(?: \| [a-z0-9-]+)*)\)$`)

// TestConformanceImages checks conformance-images.txt against images.txt (every
// image e2e.test knows is there once, with a use, a status and a reason), the
// script (it builds the rows marked built, each with the recipe of its name;
// every recipe serves some version), the etcd module (it pins the release the
// etcd image's tag names) and the bundle (the pause image the list leaves to
// it is the one the bundle of the version's minor carries: its row of
// ../minors.tsv). Nothing is built.
func TestConformanceImages(t *testing.T) {
	script, err := os.ReadFile("../scripts/conformance-images.sh")
	if err != nil {
		t.Fatal(err)
	}
	// The script builds what the list marks built, read from the list.
	if !strings.Contains(string(script), `list="$moddir/conformance-images.txt"`) ||
		!strings.Contains(string(script), `$3 == "built" { print $1 }' "$list"`) {
		t.Fatal("scripts/conformance-images.sh does not take IMAGES from conformance/VERSION/conformance-images.txt's built rows")
	}
	recipes := map[string]bool{}
	for _, m := range scriptRecipe.FindAllStringSubmatch(string(script), -1) {
		for _, name := range strings.Split(m[1], " | ") {
			recipes[name] = false
		}
	}
	if len(recipes) < 5 {
		t.Fatalf("found only %d recipes (case labels) in scripts/conformance-images.sh: %v", len(recipes), recipes)
	}
	minors, err := os.ReadFile("../minors.tsv")
	if err != nil {
		t.Fatal(err)
	}

	dirs, _ := filepath.Glob("v1.*")
	lists := 0
	for _, dir := range dirs {
		list, err := os.ReadFile(filepath.Join(dir, "conformance-images.txt"))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		known, err := os.ReadFile(filepath.Join(dir, "images.txt"))
		if err != nil {
			t.Fatal(err)
		}
		lists++
		t.Run(dir, func(t *testing.T) {
			// The pause image of the version's minor, as build.sh names it.
			minor := dir[1:strings.LastIndex(dir, ".")]
			var pause string
			for _, line := range strings.Split(string(minors), "\n") {
				if f := strings.Fields(line); len(f) == 7 && f[0] == minor {
					pause = "registry.k8s.io/pause:" + f[6]
				}
			}
			if pause == "" {
				t.Fatalf("minors.tsv has no row for %s", minor)
			}
			seen := map[string]bool{}
			var listed []string
			conformance := 0
			for i, line := range strings.Split(string(list), "\n") {
				if line == "" || strings.HasPrefix(line, "#") {
					continue
				}
				f := strings.Fields(line)
				if len(f) < 4 || !imageRef.MatchString(f[0]) ||
					!slices.Contains([]string{"conformance", "other"}, f[1]) ||
					!slices.Contains([]string{"built", "bundle", "no"}, f[2]) {
					t.Errorf("conformance-images.txt:%d: want IMAGE conformance|other built|bundle|no WHY, got %q", i+1, line)
					continue
				}
				if seen[f[0]] {
					t.Errorf("conformance-images.txt:%d: %s listed twice", i+1, f[0])
				}
				seen[f[0]] = true
				switch f[2] {
				case "built":
					listed = append(listed, f[0])
					name := f[0][strings.LastIndex(f[0], "/")+1 : strings.LastIndex(f[0], ":")]
					if _, ok := recipes[name]; !ok {
						t.Errorf("conformance-images.txt:%d: %s is marked built, but scripts/conformance-images.sh has no recipe %q", i+1, f[0], name)
					}
					recipes[name] = true
				case "bundle":
					if f[0] != pause {
						t.Errorf("%s: marked bundle, but the bundle of %s carries %s (minors.tsv)", f[0], minor, pause)
					}
				}
				if f[1] == "conformance" {
					conformance++
					if f[2] == "no" && !strings.Contains(line, "costs") {
						t.Errorf("%s: a conformance image not made must say which specs it costs ('costs …'): %q", f[0], line)
					}
				}
			}
			for _, ref := range strings.Fields(string(known)) {
				if !seen[ref] {
					t.Errorf("%s (images.txt) is not in conformance-images.txt", ref)
				}
				delete(seen, ref)
			}
			for ref := range seen {
				t.Errorf("%s is in conformance-images.txt but not in images.txt (e2e.test --list-images)", ref)
			}
			if conformance == 0 {
				t.Error("conformance-images.txt marks no image as used by the conformance specs")
			}

			// The etcd image's tag is the release its module pins, plus upstream's -0.
			gomod, err := os.ReadFile(filepath.Join(dir, "etcd", "go.mod"))
			if err != nil {
				t.Fatal(err)
			}
			for _, ref := range listed {
				if tag, ok := strings.CutPrefix(ref, "registry.k8s.io/etcd:"); ok {
					release := "v" + strings.TrimSuffix(tag, "-0")
					if !strings.Contains(string(gomod), "go.etcd.io/etcd/server/v3 "+release+"\n") {
						t.Errorf("%s: etcd/go.mod does not require go.etcd.io/etcd/server/v3 %s", ref, release)
					}
				}
			}
		})
	}
	if lists == 0 {
		t.Fatal("no conformance/v1.*/conformance-images.txt")
	}
	for name, used := range recipes {
		if !used {
			t.Errorf("scripts/conformance-images.sh has a recipe for %s, which no conformance-images.txt marks built", name)
		}
	}
}
