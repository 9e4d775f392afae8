#!/bin/bash
# sibyl wrap on libjpeg: headers in order (stdio.h before jpeglib.h),
# "not exported" limited to the library's own header, a user template
# generator, and error reporting for bad input.
set -eu
: "${SIBYL:?}" "${SIBYL_BUILD:?}" "${SIBYL_SOURCE:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

"$SIBYL" wrap libjpeg.so.62 --header stdio.h --header jpeglib.h -o jpeg.so 2>err.txt
cat err.txt
for f in jpeg_read_scanlines jpeg_write_scanlines jpeg_start_decompress; do
	nm -D --defined-only jpeg.so | grep -qw "$f" || { echo "missing export $f"; exit 1; }
done
# stdio.h functions are not the library's: never listed as not exported.
if grep -qP '^fopen\t' jpeg.so.skipped.txt; then echo "stdio listed"; exit 1; fi
grep -qP '\tdata-symbol\t' jpeg.so.skipped.txt

# A user micro-generator from a template on --gen-path.
mkdir gens
cat > gens/calls.gen <<'GEN'
# counts calls per function
requires: trace
before: time
help: count calls
[declarations]
static unsigned long sibyl_calls_${function};
[prefix]
	sibyl_calls_${function}++;
GEN
"$SIBYL" wrap libjpeg.so.62 --header stdio.h --header jpeglib.h --functions 'jpeg_*_scanlines' \
	--gen-path gens --gen time,trace,calls --emit-c j2.c -o jpeg2.so 2>/dev/null
grep -q 'sibyl_calls_jpeg_read_scanlines++' j2.c
"$SIBYL" wrap --list-gens --gen-path gens | grep -c '^  calls' >/dev/null

# Bad input: one error line, non-zero exit, existing output untouched.
cp jpeg.so before.so
if "$SIBYL" wrap libjpeg.so.62 --header jpeglib.h -o jpeg.so 2>bad.txt; then
	echo "jpeglib.h without stdio.h should fail"; exit 1
fi
cmp jpeg.so before.so
if "$SIBYL" wrap libjpeg.so.62 --header stdio.h --header jpeglib.h --gen nope -o x.so 2>bad.txt; then
	exit 1
fi
grep -q "generator 'nope' is unknown" bad.txt
printf 'libjpeg*::jpeg_read_scanlines::middle { }\n' > bad.defs
if "$SIBYL" wrap libjpeg.so.62 --header stdio.h --header jpeglib.h --defs bad.defs -o x.so 2>bad.txt; then
	exit 1
fi
grep -q 'bad.defs:1: error' bad.txt
test ! -e x.so

# A traced ImageMagick-free round trip through cjpeg/djpeg if installed.
if command -v cjpeg >/dev/null && command -v djpeg >/dev/null; then
	printf 'P6\n64 64\n255\n' > in.ppm
	head -c $((64 * 64 * 3)) /dev/urandom >> in.ppm
	"$SIBYL" trace -o tr --wrap ./jpeg.so -- cjpeg -outfile out.jpg in.ppm
	"$SIBYL" export tr --format csv -o c.csv
	grep -q jpeg_write_scanlines c.csv
fi
echo "wrap_jpeg: ok"
