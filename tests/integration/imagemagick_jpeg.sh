#!/usr/bin/env bash
# ImageMagick convert on a JPEG: libjpeg is loaded by a dlopen'ed coder
# module; every scanline call is recorded and the output is unchanged.
. "$(dirname "$0")/lib.sh"

"$SIBYL" wrap libjpeg.so.62 --header stdio.h --header jpeglib.h \
	--functions 'jpeg_read_scanlines,jpeg_write_scanlines' \
	-o "$WORK/libwrap-jpeg.so" 2>"$WORK/wrap.err" || { cat "$WORK/wrap.err"; fail "sibyl wrap"; }

convert -size 320x240 gradient:blue-yellow "$WORK/in.jpg"
convert "$WORK/in.jpg" -resize 50% "$WORK/plain.jpg"
"$SIBYL" trace -o "$WORK/im.trace" --wrap "$WORK/libwrap-jpeg.so" -- \
	convert "$WORK/in.jpg" -resize 50% "$WORK/traced.jpg"
cmp "$WORK/plain.jpg" "$WORK/traced.jpg" || fail "JPEG output differs under tracing"
"$SIBYL" report --json "$WORK/im.trace" >"$WORK/im.json"
read_calls=$(calls_of "$WORK/im.json" jpeg_read_scanlines)
write_calls=$(calls_of "$WORK/im.json" jpeg_write_scanlines)
# ImageMagick reads and writes one scanline per call.
expect_eq "jpeg_read_scanlines calls (input height)" 240 "$read_calls"
expect_eq "jpeg_write_scanlines calls (output height)" 120 "$write_calls"
echo "ImageMagick/libjpeg checks passed"
