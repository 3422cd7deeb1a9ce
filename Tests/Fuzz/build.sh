#!/usr/bin/env bash
# Builds the libFuzzer targets (see README.md) into .build/fuzz: `open`, `frames` and `hints` (the
# LogStore module with a fuzz body compiled in) and `objects` (the Logbook module over a
# fuzz-instrumented LogStore). Arguments name the targets to build (default: all four).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=.build/fuzz
mkdir -p "$out"
targets=("${@:-open frames hints objects}")
targets=(${targets[*]})
wants() { [[ " ${targets[*]} " == *" $1 "* ]]; }
cat > "$out/module.modulemap" <<MAP
module CCRC32C {
    header "$PWD/Sources/CCRC32C/include/crc32c.h"
    export *
}
MAP
quiet() { grep -v "Cannot export local symbol" || true; }
clang -c -O1 -g -fsanitize=fuzzer-no-link,address -ISources/CCRC32C/include \
    Sources/CCRC32C/crc32c.c -o "$out/crc32c.o"
# A target that is the LogStore module with a fuzz body and a main compiled in: name, then files.
logstore_target() {
    local name=$1
    shift
    rm -f "$out/$name"
    swiftc -sanitize=fuzzer,address -parse-as-library -D FUZZING -module-name LogStore \
        -package-name Logbook -Xcc -fmodule-map-file="$out/module.modulemap" -I "$out" \
        $(find Sources/LogStore -name '*.swift') "$@" "$out/crc32c.o" -o "$out/$name" 2>&1 | quiet
    test -x "$out/$name"
    echo "built $out/$name"
}
if wants open; then
    logstore_target open Tests/CrashTests/Support/FuzzOpenStore.swift Tests/Fuzz/FuzzMain.swift
fi
# The decoder bodies (frame scanner, hint files) and what they share.
support=Tests/LogStoreTests/Support
decoders=("$support/ByteFileSystem.swift" "$support/FuzzFixtures.swift" "$support/FuzzFrames.swift"
    "$support/FuzzHints.swift")
if wants frames; then logstore_target frames "${decoders[@]}" Tests/Fuzz/FuzzFramesMain.swift; fi
if wants hints; then logstore_target hints "${decoders[@]}" Tests/Fuzz/FuzzHintsMain.swift; fi
if wants objects; then
    # `objects`: LogStore as a module of its own first (no fuzz body), then Logbook against it.
    swiftc -sanitize=fuzzer,address -parse-as-library -module-name LogStore -package-name Logbook -wmo \
        -emit-module -emit-module-path "$out/LogStore.swiftmodule" -emit-object -o "$out/LogStore.o" \
        -Xcc -fmodule-map-file="$out/module.modulemap" -I "$out" $(find Sources/LogStore -name '*.swift') 2>&1 | quiet
    rm -f "$out/objects"
    swiftc -sanitize=fuzzer,address -parse-as-library -D FUZZING -module-name Logbook -package-name Logbook \
        -Xcc -fmodule-map-file="$out/module.modulemap" -I "$out" \
        $(find Sources/Logbook -name '*.swift') Tests/LogbookTests/Support/FuzzObjects.swift \
        Tests/Fuzz/FuzzObjectsMain.swift "$out/LogStore.o" "$out/crc32c.o" -o "$out/objects" 2>&1 | quiet
    test -x "$out/objects"
    echo "built $out/objects"
fi
