#include "core/json.h"

#include <math.h>

json_t *sibyl_json_real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}
