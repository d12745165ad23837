/* SPDX-License-Identifier: MIT */
/* Helpers of the in-process test servers (srv.h). */
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "srv.h"

void *srv_run(void *se)
{
	return (void *)(long)fring_session_run(se);
}

uint64_t srv_counter(fring_session_t *se, const char *name)
{
	uint64_t v = 0;

	if (fring_session_counter(se, FRING_STATS_ALL, name, &v))
		return 0;
	return v;
}

int srv_start(const char *transport, const char *opts,
	      const struct fring_ops *ops, size_t ops_size, const char *mnt,
	      fring_session_t **se, pthread_t *th)
{
	fring_config_t *cfg = fring_config_new();
	const char *ran;
	int ret;

	fring_config_set(cfg, "transport", transport);
	if (opts)
		fring_config_parse(cfg, opts);
	ret = fring_session_new(ops, ops_size, NULL, cfg, se);
	fring_config_free(cfg);
	if (ret || (ret = fring_session_mount(*se, mnt))) {
		printf("FAIL: cannot mount with transport=%s: %s\n", transport,
		       strerror(-ret));
		return 1;
	}
	pthread_create(th, NULL, srv_run, *se);
	/* the first request tells the rung (run() answers INIT) */
	CHECK_SYS("root_stat", access(mnt, F_OK));
	ran = fring_transport_name(fring_session_transport(*se));
	chk_result(!strcmp(ran, transport), "transport",
		   "expected %s got %s (%s)", transport, ran,
		   fring_session_transport_reason(*se));
	return 0;
}

void srv_stop(fring_session_t *se, pthread_t th)
{
	uint64_t bugs = srv_counter(se, "handler_bugs");
	void *rr;

	chk_result(bugs == 0, "no_handler_bugs", "%llu",
		   (unsigned long long)bugs);
	fring_session_exit(se);
	pthread_join(th, &rr);
	chk_result(rr == NULL, "run_returns_0", "got %ld", (long)rr);
	fring_session_destroy(se);
}
