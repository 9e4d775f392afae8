/* JSON helpers shared by every component that writes JSON (jansson). */
#ifndef SIBYL_CORE_JSON_H
#define SIBYL_CORE_JSON_H

#include <jansson.h>

/* v as a JSON real, or null when v is NaN or infinite: JSON has no
 * such number, and json_real() of one returns NULL, which would make
 * json_pack() fail and drop the whole object. */
json_t *sibyl_json_real_or_null(double v);

#endif
