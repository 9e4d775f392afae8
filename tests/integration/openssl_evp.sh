#!/usr/bin/env bash
# openssl enc -aes-256-cbc: EVP update calls are recorded with the bytes
# they process, and the output files are byte-identical with tracing.
. "$(dirname "$0")/lib.sh"

cat >"$WORK/evp.defs" <<'DEFS'
libcrypto*::EVP_*Update::postfix {
	input_size = inl > 0 ? (uint64_t)inl : 0;
	output_size = *outl > 0 ? (uint64_t)*outl : 0;
}
DEFS
"$SIBYL" wrap libcrypto.so.3 --header openssl/evp.h \
	--functions 'EVP_EncryptUpdate,EVP_DecryptUpdate,EVP_CipherUpdate' \
	--gen time,trace,worksize.manual --defs "$WORK/evp.defs" \
	-o "$WORK/libwrap-crypto.so" 2>"$WORK/wrap.err" || { cat "$WORK/wrap.err"; fail "sibyl wrap"; }

head -c 1000000 /dev/urandom >"$WORK/plain.bin"
KEY=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
IV=0f0e0d0c0b0a09080706050403020100
enc() { openssl enc -aes-256-cbc -K $KEY -iv $IV "$@"; }

enc -in "$WORK/plain.bin" -out "$WORK/plain.enc"
"$SIBYL" trace -o "$WORK/enc.trace" --wrap "$WORK/libwrap-crypto.so" -- \
	openssl enc -aes-256-cbc -K $KEY -iv $IV -in "$WORK/plain.bin" -out "$WORK/traced.enc"
cmp "$WORK/plain.enc" "$WORK/traced.enc" || fail "ciphertext differs under tracing"
"$SIBYL" report --json "$WORK/enc.trace" >"$WORK/enc.json"
calls=$(calls_of "$WORK/enc.json" EVP_EncryptUpdate)
[ "$calls" -ge 1 ] || fail "no EVP_EncryptUpdate call recorded"
echo "ok: EVP_EncryptUpdate calls = $calls"
expect_eq "bytes into EVP_EncryptUpdate" 1000000 \
	"$(json "sum(f['in_bytes'] for f in j['functions'] if f['name'] == 'EVP_EncryptUpdate')" "$WORK/enc.json")"

"$SIBYL" trace -o "$WORK/dec.trace" --wrap "$WORK/libwrap-crypto.so" -- \
	openssl enc -d -aes-256-cbc -K $KEY -iv $IV -in "$WORK/plain.enc" -out "$WORK/traced.dec"
cmp "$WORK/plain.bin" "$WORK/traced.dec" || fail "decrypted file differs"
"$SIBYL" report --json "$WORK/dec.trace" >"$WORK/dec.json"
expect_eq "bytes into EVP_DecryptUpdate" 1000016 \
	"$(json "sum(f['in_bytes'] for f in j['functions'] if f['name'] == 'EVP_DecryptUpdate')" "$WORK/dec.json")"
echo "openssl checks passed"
