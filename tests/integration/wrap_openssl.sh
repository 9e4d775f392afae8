#!/bin/bash
# sibyl wrap on OpenSSL's libcrypto (versioned symbols @OPENSSL_3.0.0):
# the unversioned wrappers must still interpose for `openssl enc`.
set -eu
: "${SIBYL:?}" "${SIBYL_BUILD:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

"$SIBYL" wrap libcrypto.so.3 --header openssl/evp.h --app "$(command -v openssl)" \
	--functions 'EVP_*crypt*,BIO_*printf' -o crypto.so 2>err.txt
cat err.txt
for f in EVP_EncryptUpdate EVP_DecryptUpdate EVP_EncryptInit_ex BIO_printf; do
	nm -D --defined-only crypto.so | grep -qw "$f" || { echo "missing export $f"; exit 1; }
done
# Only what the application imports: openssl does not import EVP_Cipher.
if nm -D --defined-only crypto.so | grep -qw EVP_Cipher; then echo "not imported but wrapped"; exit 1; fi

head -c 100000 /dev/urandom > in.bin
"$SIBYL" trace -o tr --wrap ./crypto.so -- \
	openssl enc -aes-128-cbc -pass pass:sibyl -pbkdf2 -in in.bin -out enc.bin
"$SIBYL" trace -o tr2 --wrap ./crypto.so -- \
	openssl enc -d -aes-128-cbc -pass pass:sibyl -pbkdf2 -in enc.bin -out dec.bin
cmp in.bin dec.bin
"$SIBYL" export tr --format csv -o enc.csv
"$SIBYL" export tr2 --format csv -o dec.csv
grep -q EVP_EncryptUpdate enc.csv
grep -q EVP_DecryptUpdate dec.csv
echo "wrap_openssl: ok"
