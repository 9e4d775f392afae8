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
	char err[512];

	if (dir < 0)
		return 1;
	if (sibyl_device_profile_load(argv[1], &p, err, sizeof(err)))
		return fprintf(stderr, "device-predict-driver: %s\n", err), 1;
	uint64_t bytes = strtoull(argv[3], NULL, 10);

	printf("%.17g %.17g\n", sibyl_device_transfer_seconds(&p, dir, bytes),
	       sibyl_device_transfer_seconds_measured(&p, dir, bytes));
	return 0;
}
