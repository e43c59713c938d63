/*
 * librdkafka (Debian librdkafka-dev) producer for bench/replication.ts. Same settings as
 * bench/rdkafka-bench.c's produce (linger.ms 5, batch.size 1 MB, queue of 1,000,000 records), plus
 * a partition count (records go round-robin: record i to partition i % partitions), a cap on the
 * client's queue in KiB, and more latency percentiles.
 * Compiled at bench time: cc -O2 -o replication-producer bench/replication-producer.c -lrdkafka
 *
 *   replication-producer <bootstrap> <topic> <count> <size> <acks> <partitions> [queue_kbytes]
 *
 * Prints one JSON line: records delivered, failed, seconds from the first produce() to the last
 * delivery report, and latency percentiles of produce() → delivery report (time queued in the
 * client included), plus the first delivery error if any.
 */
#include <librdkafka/rdkafka.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double *lat, *sent_at;
static long delivered, failed;
static char first_error[256];

static void dr_cb(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque) {
  (void)rk;
  (void)opaque;
  long i = (long)(intptr_t)m->_private;
  if (m->err) {
    if (!failed++) snprintf(first_error, sizeof first_error, "%s", rd_kafka_err2str(m->err));
  } else {
    lat[delivered++] = now_s() - sent_at[i];
  }
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void set(rd_kafka_conf_t *c, const char *k, const char *v) {
  char err[512];
  if (rd_kafka_conf_set(c, k, v, err, sizeof err) != RD_KAFKA_CONF_OK) {
    fprintf(stderr, "%s: %s\n", k, err);
    exit(2);
  }
}

static double pct(double q) { return delivered ? lat[(long)((delivered - 1) * q)] * 1000 : -1; }

int main(int argc, char **argv) {
  if (argc != 7 && argc != 8) {
    fprintf(stderr, "usage: see the comment at the top of replication-producer.c\n");
    return 2;
  }
  const char *bootstrap = argv[1], *topic = argv[2], *acks = argv[5];
  long count = atol(argv[3]);
  int size = atoi(argv[4]), partitions = atoi(argv[6]);
  const char *kbytes = argc == 8 ? argv[7] : "1048576";
  char err[512];
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  set(conf, "bootstrap.servers", bootstrap);
  set(conf, "acks", acks);
  set(conf, "linger.ms", "5");
  set(conf, "batch.size", "1000000");
  set(conf, "queue.buffering.max.messages", "1000000");
  set(conf, "queue.buffering.max.kbytes", kbytes);
  if (getenv("RDKAFKA_BENCH_DEBUG")) set(conf, "debug", getenv("RDKAFKA_BENCH_DEBUG"));
  rd_kafka_conf_set_dr_msg_cb(conf, dr_cb);
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (!rk) {
    fprintf(stderr, "%s\n", err);
    return 2;
  }
  lat = malloc(sizeof(double) * count);
  sent_at = malloc(sizeof(double) * count);
  char *payload = malloc(size);
  for (int i = 0; i < size; i++) payload[i] = 'a' + (i * 7) % 26;
  double t0 = now_s();
  for (long i = 0; i < count; i++) {
    sent_at[i] = now_s();
    for (;;) {
      rd_kafka_resp_err_t e =
          rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION((int32_t)(i % partitions)),
                            RD_KAFKA_V_VALUE(payload, size), RD_KAFKA_V_OPAQUE((void *)(intptr_t)i), RD_KAFKA_V_END);
      if (e == RD_KAFKA_RESP_ERR_NO_ERROR) break;
      if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        fprintf(stderr, "produce: %s\n", rd_kafka_err2str(e));
        return 1;
      }
      rd_kafka_poll(rk, 10);
    }
    if ((i & 1023) == 0) rd_kafka_poll(rk, 0);
  }
  /* No flush limit of our own: message.timeout.ms (300 s) fails whatever cannot be delivered. */
  while (rd_kafka_outq_len(rk) > 0) rd_kafka_poll(rk, 100);
  double secs = now_s() - t0;
  qsort(lat, delivered, sizeof(double), cmp);
  printf("{\"records\":%ld,\"failed\":%ld,\"seconds\":%.3f,\"p50_ms\":%.2f,\"p90_ms\":%.2f,\"p99_ms\":%.2f,"
         "\"p999_ms\":%.2f,\"max_ms\":%.2f,\"error\":\"%s\"}\n",
         delivered, failed, secs, pct(0.5), pct(0.9), pct(0.99), pct(0.999), pct(1), first_error);
  fflush(stdout);
  rd_kafka_destroy(rk);
  return failed ? 1 : 0;
}
