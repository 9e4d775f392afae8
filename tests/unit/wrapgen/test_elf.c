/* ELF symbols of real Debian libraries and programs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "wrapgen/elfsyms.h"
#include "wrapgen/libpath.h"

#include <string.h>

/* The error line of the last call that failed. */
static char err[512];

static void blas_exports(void **state)
{
	(void)state;
	char *path = wg_find_library("libblas.so.3", err, sizeof(err));
	struct wg_symtab t;
	const struct wg_sym *s;

	assert_non_null(path);
	assert_int_equal(wg_elf_exports(path, &t, err, sizeof(err)), 0);
	assert_string_equal(t.soname, "libblas.so.3");
	s = wg_symtab_find(&t, "dgemm_");
	assert_non_null(s);
	assert_int_equal(s->kind, WG_SYM_FUNC);
	assert_non_null(wg_symtab_find(&t, "cblas_dgemm"));
	assert_null(wg_symtab_find(&t, "memcpy"));	/* imported, not defined */
	wg_symtab_free(&t);
	free(path);
}

static void crypto_versions(void **state)
{
	(void)state;
	char *path = wg_find_library("libcrypto.so.3", err, sizeof(err));
	struct wg_symtab t;
	const struct wg_sym *s;

	assert_non_null(path);
	assert_int_equal(wg_elf_exports(path, &t, err, sizeof(err)), 0);
	s = wg_symtab_find(&t, "EVP_EncryptUpdate");
	assert_non_null(s);
	assert_non_null(s->version);
	assert_string_equal(s->version, "OPENSSL_3.0.0");
	wg_symtab_free(&t);
	free(path);
}

static void app_imports(void **state)
{
	(void)state;
	struct wg_symtab t;

	assert_int_equal(wg_elf_imports("/usr/bin/openssl", &t, err, sizeof(err)), 0);
	assert_non_null(wg_symtab_find(&t, "EVP_EncryptUpdate"));
	assert_null(wg_symtab_find(&t, "main"));
	wg_symtab_free(&t);
}

static void errors(void **state)
{
	(void)state;
	struct wg_symtab t;

	assert_int_equal(wg_elf_exports("/nonexistent/libx.so", &t, err, sizeof(err)), -1);
	wg_symtab_free(&t);
	assert_int_equal(wg_elf_exports("/etc/hostname", &t, err, sizeof(err)), -1);
	wg_symtab_free(&t);
	assert_string_equal(err, "wrap: /etc/hostname: not an ELF file");
	assert_null(wg_find_library("libdoesnotexist-sibyl.so.9", err, sizeof(err)));
	assert_non_null(strstr(err, "library not found"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(blas_exports),
		cmocka_unit_test(crypto_versions),
		cmocka_unit_test(app_imports),
		cmocka_unit_test(errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
