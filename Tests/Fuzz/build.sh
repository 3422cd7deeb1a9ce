#!/usr/bin/env bash
# Builds the libFuzzer targets (see README.md) into .build/fuzz: `open` (the LogStore module with
# the fuzz body compiled in) and `objects` (the Logbook module over a fuzz-instrumented LogStore).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=.build/fuzz
mkdir -p "$out"
cat > "$out/module.modulemap" <<MAP
module CCRC32C {
    header "$PWD/Sources/CCRC32C/include/crc32c.h"
    export *
}
MAP
quiet() { grep -v "Cannot export local symbol" || true; }
clang -c -O1 -g -fsanitize=fuzzer-no-link,address -ISources/CCRC32C/include \
    Sources/CCRC32C/crc32c.c -o "$out/crc32c.o"
swiftc -sanitize=fuzzer,address -parse-as-library -D FUZZING -module-name LogStore -package-name Logbook \
    -Xcc -fmodule-map-file="$out/module.modulemap" -I "$out" \
    $(find Sources/LogStore -name '*.swift') Tests/CrashTests/Support/FuzzOpenStore.swift \
    Tests/Fuzz/FuzzMain.swift "$out/crc32c.o" -o "$out/open" 2>&1 | quiet
test -x "$out/open"
echo "built $out/open"
# `objects`: LogStore as a module of its own first (no fuzz body), then Logbook against it.
swiftc -sanitize=fuzzer,address -parse-as-library -module-name LogStore -package-name Logbook -wmo \
    -emit-module -emit-module-path "$out/LogStore.swiftmodule" -emit-object -o "$out/LogStore.o" \
    -Xcc -fmodule-map-file="$out/module.modulemap" -I "$out" $(find Sources/LogStore -name '*.swift') 2>&1 | quiet
swiftc -sanitize=fuzzer,address -parse-as-library -D FUZZING -module-name Logbook -package-name Logbook \
    -Xcc -fmodule-map-file="$out/module.modulemap" -I "$out" \
    $(find Sources/Logbook -name '*.swift') Tests/LogbookTests/Support/FuzzObjects.swift \
    Tests/Fuzz/FuzzObjectsMain.swift "$out/LogStore.o" "$out/crc32c.o" -o "$out/objects" 2>&1 | quiet
test -x "$out/objects"
echo "built $out/objects"
