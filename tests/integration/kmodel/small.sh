# Sourced by the kmodel tests after lib.sh: the suite, and
# small_dataset DATA.jsonl, four quick kernels of it at one sample per
# size (enough for a device model, not a good one).
SUITE="$SIBYL_SOURCE/tests/kernels/suite"
small_dataset() {
	local k
	for k in saxpy stencil1d3 vmath hash_rounds; do
		"$SIBYL" kmodel dataset "$SUITE/suite.json" -k "$k" -n 1 -o "$1"
	done
}
