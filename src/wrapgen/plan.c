#define _GNU_SOURCE
#include "wrapgen/plan.h"
#include "core/alloc.h"
#include "core/fs.h"
#include "core/log.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct wg_generator *const builtins[] = {
	&wg_gen_funcptr, &wg_gen_loader, &wg_gen_caller, &wg_gen_trace,
	&wg_gen_time, &wg_gen_worksize_manual, &wg_gen_worksize_fast, &wg_gen_worksize_full, &wg_gen_counters, &wg_gen_redirect,
};
#define NBUILTINS (sizeof(builtins) / sizeof(builtins[0]))

/* The template search path, in order; malloc'd strings. */
static void search_dirs(const struct sibyl_strlist *dirs, struct sibyl_strlist *out)
{
	const char *env = getenv("SIBYL_GEN_PATH");
	char *self = sibyl_self_dir();

	for (size_t i = 0; dirs && i < dirs->count; i++)
		sibyl_strlist_add(out, dirs->items[i]);
	for (const char *p = env; p && *p;) {
		size_t n = strcspn(p, ":");

		if (n)
			sibyl_strlist_take(out, sibyl_xstrndup(p, n));
		p += n + (p[n] == ':');
	}
	if (self) {
		sibyl_strlist_take(out, sibyl_path_join(self, "../share/sibyl/generators"));
		free(self);
	}
#ifdef SIBYL_SOURCE_GENERATORS_DIR
	sibyl_strlist_add(out, SIBYL_SOURCE_GENERATORS_DIR);
#endif
}


/* A template that does not load is said so and is not there. */
static struct wg_generator *load_template(const char *file, const char *name)
{
	char err[1024];
	struct wg_generator *g = wg_template_load(file, name, err, sizeof(err));

	if (!g)
		sibyl_notice(SIBYL_NOTICE_ERROR, "%s", err);
	return g;
}

static const struct wg_generator *find(struct wg_plan *p, const struct sibyl_strlist *dirs,
				       const char *name)
{
	struct sibyl_strlist path = { 0 };
	struct wg_generator *g = NULL;

	for (size_t i = 0; i < NBUILTINS; i++)
		if (!strcmp(builtins[i]->name, name))
			return builtins[i];
	for (size_t i = 0; i < p->nloaded; i++)
		if (!strcmp(p->loaded[i]->name, name))
			return p->loaded[i];
	if (strchr(name, '/'))
		return NULL;
	search_dirs(dirs, &path);
	for (size_t i = 0; !g && i < path.count; i++) {
		char *file;

		file = sibyl_xasprintf("%s/%s.gen", path.items[i], name);
		if (access(file, R_OK) == 0)
			g = load_template(file, name);
		free(file);
	}
	sibyl_strlist_free(&path);
	if (g) {
		p->loaded = sibyl_xreallocarray(p->loaded, p->nloaded + 1, sizeof(*p->loaded));
		p->loaded[p->nloaded++] = g;
	}
	return g;
}

/* Node of the dependency graph while planning. */
struct node {
	const struct wg_generator *gen;
	struct wg_kv *params;
	size_t nparams;
	int mark;	/* 0 new, 1 on the DFS stack, 2 placed */
};

struct graph {
	struct node *v;
	size_t n;
};

static struct node *graph_find(struct graph *g, const char *name)
{
	for (size_t i = 0; i < g->n; i++)
		if (!strcmp(g->v[i].gen->name, name))
			return &g->v[i];
	return NULL;
}

static struct node *graph_add(struct graph *g, const struct wg_generator *gen)
{
	g->v = sibyl_xreallocarray(g->v, g->n + 1, sizeof(*g->v));
	memset(&g->v[g->n], 0, sizeof(g->v[0]));
	g->v[g->n].gen = gen;
	return &g->v[g->n++];
}

static bool key_known(const struct wg_generator *gen, const char *key)
{
	if (gen->any_keys)
		return true;
	if (!gen->keys)
		return false;
	for (size_t i = 0; gen->keys[i]; i++)
		if (!strcmp(gen->keys[i], key))
			return true;
	return false;
}

/* "name:k=v:k2=v2" -> node with parameters. */
static int add_spec(struct wg_plan *p, const struct sibyl_strlist *dirs, struct graph *g,
		    const char *spec, char *err, size_t errlen)
{
	size_t n = strcspn(spec, ":");
	char *name = sibyl_xstrndup(spec, n);
	const struct wg_generator *gen = find(p, dirs, name);
	struct node *nd;

	if (!gen) {
		sibyl_seterr(err, errlen, "wrap: generator '%s' is unknown (see --list-gens)",
			     name);
		free(name);
		return -1;
	}
	free(name);
	nd = graph_find(g, gen->name);
	if (!nd)
		nd = graph_add(g, gen);
	for (const char *s = spec + n; *s == ':';) {
		const char *kv = s + 1, *eq;
		size_t len = strcspn(kv, ":");

		eq = memchr(kv, '=', len);
		if (!eq || eq == kv)
			return sibyl_seterr(err, errlen, "wrap: generator '%s': parameter '%.*s' "
					    "is not KEY=VALUE", gen->name, (int)len, kv);
		char *key = sibyl_xstrndup(kv, (size_t)(eq - kv));

		if (!key_known(gen, key)) {
			sibyl_seterr(err, errlen, "wrap: generator '%s' has no parameter '%s'",
				     gen->name, key);
			free(key);
			return -1;
		}
		nd->params = sibyl_xreallocarray(nd->params, nd->nparams + 1, sizeof(*nd->params));
		nd->params[nd->nparams].key = key;
		nd->params[nd->nparams++].value = sibyl_xstrndup(eq + 1, len - (size_t)(eq + 1 - kv));
		s = kv + len;
	}
	return 0;
}

/* Add every requirement, transitively (the graph grows while we walk it). */
static int close_requirements(struct wg_plan *p, const struct sibyl_strlist *dirs,
			      struct graph *g, char *err, size_t errlen)
{
	for (size_t i = 0; i < g->n; i++) {
		const char *req = g->v[i].gen->requires;

		for (const char *r = req; r && *r;) {
			size_t n = strcspn(r, ", ");
			char *name = sibyl_xstrndup(r, n);
			const struct wg_generator *gen = n ? find(p, dirs, name) : NULL;

			if (n && !gen) {
				sibyl_seterr(err, errlen, "wrap: generator '%s' requires '%s', "
					     "which is not a known generator", g->v[i].gen->name,
					     name);
				free(name);
				return -1;
			}
			if (gen && !graph_find(g, gen->name))
				graph_add(g, gen);
			free(name);
			r += n;
			r += strspn(r, ", ");
		}
	}
	return 0;
}

static bool listed(const char *csv, const char *name)
{
	size_t len = strlen(name);

	for (const char *r = csv; r && *r;) {
		size_t n = strcspn(r, ", ");

		if (n == len && !strncmp(r, name, n))
			return true;
		r += n;
		r += strspn(r, ", ");
	}
	return false;
}

static int visit(struct graph *g, struct node *nd, struct wg_plan *out, char *err,
		 size_t errlen);

/* Everything that must come before `nd`: its requirements, and the
 * present generators that asked to run outside it.  A cycle's line
 * grows by the generators it runs through. */
static int visit_preds(struct graph *g, struct node *nd, struct wg_plan *out, char *err,
		       size_t errlen)
{
	for (size_t i = 0; i < g->n; i++) {
		struct node *o = &g->v[i];

		if (o == nd || !(listed(nd->gen->requires, o->gen->name) ||
				 listed(o->gen->before, nd->gen->name)))
			continue;
		if (visit(g, o, out, err, errlen) < 0) {
			size_t n = err ? strlen(err) : 0;

			if (n < errlen)
				snprintf(err + n, errlen - n, " ... needed by '%s'", nd->gen->name);
			return -1;
		}
	}
	return 0;
}

static int visit(struct graph *g, struct node *nd, struct wg_plan *out, char *err,
		 size_t errlen)
{
	if (nd->mark == 2)
		return 0;
	if (nd->mark == 1)
		return sibyl_seterr(err, errlen, "wrap: generators form a cycle through '%s'",
				    nd->gen->name);
	nd->mark = 1;
	if (visit_preds(g, nd, out, err, errlen) < 0)
		return -1;
	nd->mark = 2;
	struct wg_inst *in = &out->v[out->n++];

	in->gen = nd->gen;
	in->params = nd->params;
	in->nparams = nd->nparams;
	nd->params = NULL;
	nd->nparams = 0;
	return 0;
}

static void graph_free(struct graph *g)
{
	for (size_t i = 0; i < g->n; i++) {
		for (size_t k = 0; k < g->v[i].nparams; k++) {
			free(g->v[i].params[k].key);
			free(g->v[i].params[k].value);
		}
		free(g->v[i].params);
	}
	free(g->v);
}

int wg_plan_build(const struct sibyl_strlist *specs, const struct sibyl_strlist *dirs,
		  struct wg_plan *out, char *err, size_t errlen)
{
	struct graph g = { 0 };
	int rc = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; !rc && i < specs->count; i++)
		rc = add_spec(out, dirs, &g, specs->items[i], err, errlen);
	if (!rc)
		rc = close_requirements(out, dirs, &g, err, errlen);
	if (!rc) {
		out->v = sibyl_xcalloc(g.n ? g.n : 1, sizeof(*out->v));
	}
	for (size_t i = 0; !rc && i < g.n; i++)
		rc = visit(&g, &g.v[i], out, err, errlen);
	graph_free(&g);
	return rc;
}

void wg_plan_free(struct wg_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		if (p->v[i].gen->cleanup)
			p->v[i].gen->cleanup(&p->v[i]);
		for (size_t k = 0; k < p->v[i].nparams; k++) {
			free(p->v[i].params[k].key);
			free(p->v[i].params[k].value);
		}
		free(p->v[i].params);
	}
	free(p->v);
	for (size_t i = 0; i < p->nloaded; i++)
		wg_template_free(p->loaded[i]);
	free(p->loaded);
	memset(p, 0, sizeof(*p));
}

static void list_one(FILE *f, const struct wg_generator *g, const char *origin)
{
	fprintf(f, "  %-16s %s\n", g->name, g->help ? g->help : "");
	if (g->requires && *g->requires)
		fprintf(f, "  %-16s   requires: %s\n", "", g->requires);
	if (origin)
		fprintf(f, "  %-16s   from %s\n", "", origin);
}

void wg_plan_list(FILE *f, const struct sibyl_strlist *dirs)
{
	struct sibyl_strlist path = { 0 };

	fprintf(f, "built-in generators:\n");
	for (size_t i = 0; i < NBUILTINS; i++)
		list_one(f, builtins[i], NULL);
	search_dirs(dirs, &path);
	fprintf(f, "template generators (NAME.gen on the generator path):\n");
	for (size_t i = 0; i < path.count; i++) {
		DIR *d = opendir(path.items[i]);
		struct dirent *e;

		while (d && (e = readdir(d))) {
			size_t n = strlen(e->d_name);

			if (n <= 4 || strcmp(e->d_name + n - 4, ".gen"))
				continue;
			char *file = sibyl_path_join(path.items[i], e->d_name);
			char *name = sibyl_xstrndup(e->d_name, n - 4);
			struct wg_generator *g = load_template(file, name);

			if (g)
				list_one(f, g, file);
			wg_template_free(g);
			free(name);
			free(file);
		}
		if (d)
			closedir(d);
	}
	sibyl_strlist_free(&path);
}
