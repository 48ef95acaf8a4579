#!/usr/bin/env bash
# Builds the real control plane the tests of this module run on, from the Go module proxy:
# kube-apiserver, kube-controller-manager, kubectl and etcd, at the versions versions.env pins,
# into ~/.kubeapitest/k8s/<version>-linux-amd64/, the layout fabric8's kube-api-test reads (it
# downloads kube-apiserver, etcd and kubectl there itself where it has internet). Does nothing
# when all four are there. Needs Go 1.26 or newer.
#
# k8s.io/kubernetes cannot be built with `go install ...@version`: its go.mod replaces the staging
# modules (k8s.io/api, k8s.io/apiserver, ...) with paths inside its own repository. So this script
# writes a small module that requires k8s.io/kubernetes and replaces each staging module it requires
# with that module's own published v0.<minor>.<patch>, the list read from the published go.mod.
set -euo pipefail

# shellcheck source=versions.env
source "$(dirname "$0")/versions.env"
target=${KUBE_API_TEST_DIR:-$HOME/.kubeapitest}/k8s/$KUBERNETES_VERSION-linux-amd64
binaries=(kube-apiserver kube-controller-manager kubectl etcd)

# Two builds at once (the control-plane modules' tests start side by side) build one after the
# other: the second finds the first's binaries.
mkdir -p "$target"
exec 9>"$target/.build.lock"
flock 9
missing=()
for binary in "${binaries[@]}"; do
  [[ -x $target/$binary ]] || missing+=("$binary")
done
if (( ${#missing[@]} == 0 )); then
  echo "Kubernetes $KUBERNETES_VERSION and etcd $ETCD_VERSION binaries: $target"
  exit 0
fi
# Go's own installer puts it here, a place not every shell has on its PATH
command -v go >/dev/null || PATH=$PATH:/usr/local/go/bin
if ! command -v go >/dev/null; then
  echo "Cannot build ${missing[*]} for the control-plane tests: no Go here. Install Go 1.26 or newer and run $0, or put Kubernetes $KUBERNETES_VERSION's kube-apiserver, kube-controller-manager, kubectl and etcd $ETCD_VERSION into $target" >&2
  exit 1
fi

started=$SECONDS
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GOFLAGS=-mod=mod CGO_ENABLED=0 GOTOOLCHAIN=local

echo "Building Kubernetes $KUBERNETES_VERSION (kube-apiserver, kube-controller-manager, kubectl) and etcd $ETCD_VERSION into $target; the first time takes about 15 minutes on two cores"
mkdir "$work/kubernetes" "$work/etcd"
(
  cd "$work/kubernetes"
  go mod init leaderelection.io/kube-binaries >/dev/null 2>&1
  go mod download -json "k8s.io/kubernetes@v$KUBERNETES_VERSION" >"$work/kubernetes.json"
  published_mod=$(sed -n 's/^\s*"GoMod": "\(.*\)",$/\1/p' "$work/kubernetes.json")
  staging_version=v0.${KUBERNETES_VERSION#1.}
  # the staging modules k8s.io/kubernetes requires (its replace block also names some it does not)
  required=$(sed -n '/^require (/,/^)/p' "$published_mod" | awk '{print $1}')
  for module in $(sed -n 's#^\s*\(k8s.io/[a-z0-9-]*\) => \./staging/.*#\1#p' "$published_mod"); do
    if grep -qx "$module" <<<"$required"; then
      go mod edit -replace "$module=$module@$staging_version"
    fi
  done
  go mod edit -require "k8s.io/kubernetes@v$KUBERNETES_VERSION"
  for command in kube-apiserver kube-controller-manager kubectl; do
    go get -tool "k8s.io/kubernetes/cmd/$command@v$KUBERNETES_VERSION"
  done
  minor=${KUBERNETES_VERSION#1.}
  minor=${minor%%.*}
  ldflags="-s -w"
  for package in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $package.gitVersion=v$KUBERNETES_VERSION -X $package.gitMajor=1 -X $package.gitMinor=$minor"
    ldflags+=" -X $package.gitTreeState=clean -X $package.buildDate=1970-01-01T00:00:00Z"
  done
  for command in kube-apiserver kube-controller-manager kubectl; do
    go build -trimpath -ldflags "$ldflags" -o "$target/$command" "k8s.io/kubernetes/cmd/$command"
    echo "  $command: $(( SECONDS - started )) s"
  done
)
(
  # go.etcd.io/etcd/server/v3 is itself etcd's main package
  cd "$work/etcd"
  go mod init leaderelection.io/etcd-binary >/dev/null 2>&1
  go get -tool "go.etcd.io/etcd/server/v3@v$ETCD_VERSION"
  go build -trimpath -ldflags "-s -w" -o "$target/etcd" go.etcd.io/etcd/server/v3
  echo "  etcd: $(( SECONDS - started )) s"
)
"$target/kube-apiserver" --version
"$target/etcd" --version | head -1
echo "Built in $(( (SECONDS - started) / 60 )) min $(( (SECONDS - started) % 60 )) s"
