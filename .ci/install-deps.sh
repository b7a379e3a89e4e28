#!/usr/bin/env bash
# Installs the Debian 12 packages dfg needs that are not installed yet.
set -euo pipefail
packages=(
  cmake ninja-build g++ pkg-config ccache
  protobuf-compiler libprotobuf-dev libcli11-dev libfmt-dev nlohmann-json3-dev
  libgraphviz-dev graphviz catch2 libbenchmark-dev
  libopenblas-dev zlib1g-dev python3-numpy python3-venv libre2-dev
  libleveldb-dev libsnappy-dev libdnnl-dev
  libfarmhash-dev libicu-dev  # Fingerprint64 and UTF-8 case mapping of string ops
  libfftw3-dev              # the FFT kernels
  libeigen3-dev             # the sparse CSR kernels TensorFlow runs with Eigen
  libjpeg62-turbo-dev libpng-dev  # the image codec kernels
  libzstd-dev               # DecodeCompressed's ZSTD
  libgif-dev libwebp-dev libjxl-dev  # DecodeGif, DecodeWebP, DecodeJxl
  libgrpc++-dev protobuf-compiler-grpc python3-grpcio python3-protobuf
  dpkg-dev file man-db zsh  # cmake --install / cpack -G DEB and their tests
  openssl                   # distributed_faults_test's TLS certificate
  python3-yaml              # packaging_k8s reads the Kubernetes manifests
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
# oracle_difftest's TensorFlow.js runs on Node.js. Looked for as commands: a
# Node.js from elsewhere (NodeSource's package bundles npm and conflicts with
# Debian's npm) serves as well.
command -v node > /dev/null || missing+=(nodejs)
command -v npm > /dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

# The oracle's pinned packages (testdata/oracle/package-lock.json), fetched
# now rather than during the test; npm's cache serves them when it has them.
oracle="$(cd "$(dirname "$0")/.." && pwd)/testdata/oracle"
if [ ! -f "$oracle/node_modules/@tensorflow/tfjs-converter/package.json" ]; then
  echo "npm ci in $oracle"
  (cd "$oracle" && npm ci --prefer-offline --no-audit --no-fund --fetch-retries=1)
fi
