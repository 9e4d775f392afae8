/* Test driver: read {"X": rows, "y": [...], "k": folds, "cases": [spec],
 * "grid": [spec]} on stdin (spec: {"kind": "ols"|"enet"|"nnls", "poly2",
 * "scale", "alpha", "l1_ratio"}), fit every case and print {"fits":
 * [{"w", "b", "r2", "cv"}], "grid": {"best", "score"}} for
 * regress_sklearn.py to compare with scikit-learn. */
#include "model/regress.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct sibyl_reg_spec spec_of(json_t *j)
{
	const char *kind = json_string_value(json_object_get(j, "kind"));
	struct sibyl_reg_spec s = {
		.kind = !strcmp(kind, "enet") ? SIBYL_REG_ENET :
			!strcmp(kind, "nnls") ? SIBYL_REG_NNLS : SIBYL_REG_OLS,
		.poly2 = json_is_true(json_object_get(j, "poly2")),
		.scale = json_is_true(json_object_get(j, "scale")),
		.alpha = json_number_value(json_object_get(j, "alpha")),
		.l1_ratio = json_number_value(json_object_get(j, "l1_ratio")),
	};
	return s;
}

static json_t *fit_case(json_t *c, const double *X, const double *y, size_t n, size_t p, size_t k)
{
	struct sibyl_reg_spec s = spec_of(c);
	struct sibyl_reg_model m;
	char err[256];
	double cv, *pred = calloc(n, sizeof(*pred));

	if (sibyl_reg_fit(&s, X, y, n, p, &m, err, sizeof(err)) < 0 ||
	    sibyl_reg_cv(&s, X, y, n, p, k, &cv, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	json_t *w = json_array();

	for (size_t j = 0; j < m.p; j++)
		json_array_append_new(w, json_real(m.w[j]));
	for (size_t i = 0; i < n; i++)
		pred[i] = sibyl_reg_predict(&m, X + i * p);
	json_t *out = json_pack("{s:o, s:f, s:f, s:f}", "w", w, "b", m.b, "r2",
				sibyl_r2(y, pred, n), "cv", cv);
	sibyl_reg_free(&m);
	free(pred);
	return out;
}

int main(void)
{
	json_error_t je;
	json_t *in = json_loadf(stdin, 0, &je), *rows, *c;
	size_t i, n, p, k;

	if (!in)
		return fprintf(stderr, "%s\n", je.text), 2;
	rows = json_object_get(in, "X");
	n = json_array_size(rows);
	p = json_array_size(json_array_get(rows, 0));
	k = (size_t)json_integer_value(json_object_get(in, "k"));
	double *X = calloc(n * p, sizeof(*X)), *y = calloc(n, sizeof(*y));

	for (i = 0; i < n; i++) {
		y[i] = json_number_value(json_array_get(json_object_get(in, "y"), i));
		for (size_t j = 0; j < p; j++)
			X[i * p + j] = json_number_value(json_array_get(json_array_get(rows, i), j));
	}
	json_t *fits = json_array(), *grid = json_object_get(in, "grid");

	json_array_foreach(json_object_get(in, "cases"), i, c)
		json_array_append_new(fits, fit_case(c, X, y, n, p, k));
	size_t ng = json_array_size(grid);
	struct sibyl_reg_spec *cand = calloc(ng + 1, sizeof(*cand));
	double score = 0;
	char err[256];

	json_array_foreach(grid, i, c)
		cand[i] = spec_of(c);
	long best = ng ? sibyl_reg_grid(cand, ng, X, y, n, p, k, &score, err, sizeof(err)) : -1;
	json_t *out = json_pack("{s:o, s:{s:I, s:f}}", "fits", fits, "grid", "best",
				(json_int_t)best, "score", score);

	json_dumpf(out, stdout, JSON_REAL_PRECISION(17));
	putchar('\n');
	json_decref(out);
	json_decref(in);
	free(X), free(y), free(cand);
	return 0;
}
