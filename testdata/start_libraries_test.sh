#!/bin/sh
# dfg starts without the libraries only a rarely used kernel needs: libjxl
# (DecodeJxl opens it by its soname when its first kernel is built) and what
# it pulls in (Highway, which calibrates a timer as it loads, lcms2, brotli)
# would cost every dfg process ~5 ms. Neither linked nor loaded through
# another library.
#   sh testdata/start_libraries_test.sh build/dfg
dfg=${1:?usage: start_libraries_test.sh DFG}
loaded=$(ldd "$dfg") || { echo "FAIL: ldd $dfg"; exit 1; }
for lib in libjxl libhwy liblcms2 libbrotli; do
  case $loaded in
    *"$lib"*) echo "FAIL: dfg loads $lib at start:"; echo "$loaded" | grep "$lib"
              exit 1 ;;
  esac
done
echo "PASS: $(echo "$loaded" | wc -l) libraries at start, none of libjxl's"
