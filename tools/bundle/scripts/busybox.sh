#!/usr/bin/env bash
# busybox.sh VERSION OUT — builds the busybox of the e2e busybox image into
# OUT (a static binary) from Debian's source package busybox=VERSION (the
# source of the busybox-static the other images' closure resolves).
#
# Why not Debian's busybox-static binary: Debian reverts upstream's commit
# 9c143ce5 ("ash: retain envvars with bad names in initial environment"), so
# its sh drops variables such as data-1 before running a command, and the
# ConfigMap and Secret "consumable via the environment" conformance tests
# (`sh -c env` with EnvFrom a ConfigMap whose keys have dashes) fail. Upstream's
# image is docker's busybox:1.36.1, whose sh keeps them. Debian carries the
# switch back to upstream's behaviour as FEATURE_DI_ENV_HACK; this build is
# Debian's static configuration and patches with that switch on — nothing
# else differs from busybox-static.
#
# The source comes through apt (its Sources index is signed, so the tarballs are
# checked) with a private state directory: the machine's apt lists and sources
# stay untouched.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
version=${1:?usage: busybox.sh VERSION OUT}
out=${2:?usage: busybox.sh VERSION OUT}

need=()
for t in gcc:gcc make:make patch:patch bzip2:bzip2 xz:xz-utils; do
  command -v "${t%%:*}" >/dev/null || need+=("${t#*:}")
done
[[ -f /usr/include/stdio.h ]] || need+=(libc6-dev)
if ((${#need[@]})); then
  log "busybox: installing ${need[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null ||
    die "busybox: apt-get install ${need[*]} failed"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
apt_dir=$work/apt
mkdir -p "$apt_dir/sources.list.d" "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$work/src"
# The machine's deb sources as deb-src ones (both formats apt reads).
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
  [[ -f $f ]] || continue
  sed -e 's/^Types:.*/Types: deb-src/' -e 's/^deb /deb-src /' "$f" >"$apt_dir/sources.list.d/$(basename "$f")"
done
apt_opts=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$apt_dir/sources.list.d"
  -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache::Archives=$apt_dir/archives"
  -o Dir::State::status=/dev/null -o APT::Sandbox::User=root)
apt-get -qq "${apt_opts[@]}" update || die "busybox: apt-get update of the deb-src indexes failed"
(cd "$work/src" && apt-get -qq "${apt_opts[@]}" source --download-only "busybox=$version" >/dev/null) ||
  die "busybox: apt-get source busybox=$version failed"

src=$work/src/busybox
mkdir "$src"
tar -xf "$work"/src/busybox_*.orig.tar.* -C "$src" --strip-components=1
tar -xf "$work"/src/busybox_*.debian.tar.* -C "$src"
while read -r p; do
  [[ -z $p || $p == \#* ]] && continue
  patch -d "$src" -p1 -s <"$src/debian/patches/$p" || die "busybox: Debian's patch $p does not apply"
done <"$src/debian/patches/series"
grep -qx '# CONFIG_FEATURE_DI_ENV_HACK is not set' "$src/debian/config/pkg/static" ||
  die "busybox: Debian's static configuration has no FEATURE_DI_ENV_HACK switch (source $version)"
sed 's/^# CONFIG_FEATURE_DI_ENV_HACK is not set$/CONFIG_FEATURE_DI_ENV_HACK=y/' \
  "$src/debian/config/pkg/static" >"$src/.config"
log "busybox: building $version (static, upstream's environment handling)"
# No build time in the binary (as Debian builds it); the banner names the source.
export KCONFIG_NOTIMESTAMP=1
# (yes ends on SIGPIPE once oldconfig stops reading: not a failure.)
(cd "$src" && { yes '' || true; } | make -s oldconfig >"$work/build.log" 2>&1 &&
  nice -n 19 make -s -j"$(nproc)" BB_EXTRA_VERSION="Debian $version with FEATURE_DI_ENV_HACK" busybox >>"$work/build.log" 2>&1) ||
  { tail -n 30 "$work/build.log" >&2; die "busybox: the build failed"; }
# The check the conformance tests make: a dashed name reaches sh's children.
[[ $(env 'data-1=value-1' "$src/busybox" sh -c env) == *data-1=value-1* ]] ||
  die "busybox: the built sh still drops variables with dashed names"
install -m 0755 "$src/busybox" "$out"
