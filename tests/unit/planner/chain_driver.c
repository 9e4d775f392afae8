/* Test driver: read the matrix parameters ("segment_error sample_error
 * confidence time_floor fit_error relative") then "x y" samples on stdin,
 * add them one by one as the planner does (insert, then update the chains
 * from the changed node) and print every segment cell and the best chain,
 * for chain_oracle.sh to check against numpy/scipy and a brute-force
 * search over all chains:
 *   node X                      one per unique work metric, ascending
 *   cell ROW COL VALID OOR      every cell with ROW < COL
 *   best OOR SEGMENTS           or "best none"
 *   chain R1 C1 R2 C2 ...       the best chain, first segment first */
#include "planner/chain.h"

#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	struct sibyl_matrix_params p;
	struct sibyl_matrix m;
	int relative;
	double x, y;
	size_t i, row, col;

	if (scanf("%lf %lf %lf %lf %lf %d", &p.segment_error, &p.sample_error, &p.confidence,
		  &p.time_floor, &p.fit_error, &relative) != 6)
		return 2;
	p.relative = relative;
	sibyl_matrix_init(&m, &p);
	while (scanf("%lf %lf", &x, &y) == 2) {
		if (sibyl_matrix_insert(&m, x, y, &i))
			return 1;
		sibyl_chain_update(&m, i);
	}
	for (i = 0; i < m.count; i++)
		printf("node %.17g\n", m.nodes[i].x);
	for (row = 0; row < m.count; row++)
		for (col = row + 1; col < m.count; col++) {
			const struct sibyl_cell *c = sibyl_cell_at(&m, row, col);

			printf("cell %zu %zu %d %u\n", row, col, c->valid, c->valid ? c->oor : 0);
		}
	if (!sibyl_chain_best(&m, &row, &col)) {
		puts("best none");
	} else {
		const struct sibyl_cell *c = sibyl_cell_at(&m, row, col);
		size_t n;
		struct sibyl_segment *s = sibyl_chain_segments(&m, row, col, &n);

		printf("best %u %u\nchain", c->chain_oor, c->chain_segs);
		for (i = 0; i < n; i++)
			printf(" %ld %ld", sibyl_matrix_find(&m, s[i].from),
			       sibyl_matrix_find(&m, s[i].to));
		putchar('\n');
		free(s);
	}
	sibyl_matrix_free(&m);
	return 0;
}
