#!/bin/bash
# Makes a store of awkward employees and companies with EMPLOYEES, then writes what `list` and
# `company list` print for it into OUT: NAME.out (stdout), NAME.err (stderr), NAME.status.
# The committed expected/ files are what the app printed before `list` streamed (ListGoldenTests).
# Usage: run.sh EMPLOYEES STORE OUT
set -eu
# \u escapes below need a UTF-8 locale.
export LC_ALL=C.UTF-8
E=("$1" --store "$2")
out=$3
mkdir -p "$out"
q() { "${E[@]}" "$@" > /dev/null; }
q company add --name Acme --city Pune
q company add --name 北京公司 --city 北京
q company add --name 'Quote "Co" \ Slash/Inc'
q company add --name $'Tab\tCo'
q add --name "Ann Lee" --designation Engineer --salary 2000000 --company Acme
q add --name 李小龙 --designation "Martial artist" --salary 1 --company 北京公司
q add --name "Zoë 👩‍💻" --designation Engineer --salary 22
q add --name Ann --designation "" --salary 333
q add --name $'Evil\e[2J\nname\r' --designation $'x\x01y\x7f' --salary 0 --company 'Quote "Co" \ Slash/Inc'
q add --name 'Back\slash "quoted" a/b' --designation $'tab\there' --salary 9223372036854775807 --company $'Tab\tCo'
q add --name $'e\u0301 combining \u200d zwj \u2028 ls \u00a0 nbsp' --designation $'\U0001F1EF\U0001F1F5 flag' --salary 42 --company 北京公司
q add --name $'\u202eRTL override' --designation $'\x1f\x0b\x0c\x08' --salary 7
q add --name "Kevin Park" --designation Designer --salary 1500000 --company Acme
q add --name "A very long name that goes on and on, wider than any other in this list" --designation "Chief Executive Officer" --salary 100
q add --name "Maria Garcia" --designation Support --salary 900000 --company $'Tab\tCo'
q delete Employee/4
run() {
    local name=$1
    shift
    set +e
    "${E[@]}" "$@" > "$out/$name.out" 2> "$out/$name.err"
    echo $? > "$out/$name.status"
    set -e
}
run list list
run list-json list --json
run list-desc list --desc
run list-sort-name list --sort name
run list-sort-salary-desc list --sort salary --desc
run list-sort-designation list --sort designation
run list-where list --where 'salary > 100'
run list-where-json list --where 'salary > 100' --sort salary --json
run list-company list --company Acme
run list-company-json list --company 北京公司 --json
run list-company-desc list --company acme --desc
run list-company-where list --company 北京公司 --where "name BEGINSWITH 'e'"
run list-empty list --where 'salary < 0'
run list-empty-json list --where 'salary < 0' --json
run list-bad-where list --where 'salary >'
run list-where-company list --where 'company == 1'
run list-unknown-company list --company Nope
run company-list company list
run company-list-json company list --json
