/* device_predict_driver PROFILE.json DIR BYTES: the C API's predictions
 * from a real profile file, "model measured", for a script to check
 * against its own reading of the JSON (tests/integration/ocl). */
#include "ocl/device/device_profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	struct sibyl_device_profile p;
	int dir = -1;

	if (argc != 4)
		return 2;
	for (int d = 0; d < SIBYL_DIR_COUNT; d++)
		if (!strcmp(argv[2], sibyl_transfer_dir_name(d)))
			dir = d;
	if (dir < 0 || sibyl_device_profile_load(argv[1], &p))
		return 1;
	uint64_t bytes = strtoull(argv[3], NULL, 10);

	printf("%.17g %.17g\n", sibyl_device_transfer_seconds(&p, dir, bytes),
	       sibyl_device_transfer_seconds_measured(&p, dir, bytes));
	return 0;
}
