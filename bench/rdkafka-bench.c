/*
 * Tiny librdkafka (Debian librdkafka-dev) producer/consumer for the broker benchmark.
 * Compiled at bench time: cc -O2 -o rdkafka-bench bench/rdkafka-bench.c -lrdkafka
 *
 *   rdkafka-bench produce <bootstrap> <topic> <count> <size> <acks>
 *   rdkafka-bench consume <bootstrap> <topic> <count>
 *   rdkafka-bench mock <topic> <count> <size> <acks>   (produce to librdkafka's in-memory mock cluster)
 *
 * Prints one JSON line per phase: records, seconds, and for produce the p50/p99 latency from
 * produce() to the delivery report (which includes time spent queued in the client).
 */
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
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

static double *lat;
static long delivered, failed;
static double *sent_at;

static void dr_cb(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque) {
  (void)rk;
  (void)opaque;
  long i = (long)(intptr_t)m->_private;
  if (m->err) failed++;
  else lat[delivered++] = now_s() - sent_at[i];
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

static int produce(const char *bootstrap, const char *topic, long count, int size, const char *acks) {
  char err[512];
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  set(conf, "bootstrap.servers", bootstrap);
  set(conf, "acks", acks);
  set(conf, "linger.ms", "5");
  if (getenv("RDKAFKA_BENCH_DEBUG")) set(conf, "debug", getenv("RDKAFKA_BENCH_DEBUG"));
  set(conf, "batch.size", "1000000");
  set(conf, "queue.buffering.max.messages", "1000000");
  set(conf, "queue.buffering.max.kbytes", "1048576");
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
      rd_kafka_resp_err_t e = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(0),
                                                RD_KAFKA_V_VALUE(payload, size), RD_KAFKA_V_OPAQUE((void *)(intptr_t)i),
                                                RD_KAFKA_V_END);
      if (e == RD_KAFKA_RESP_ERR_NO_ERROR) break;
      if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        fprintf(stderr, "produce: %s\n", rd_kafka_err2str(e));
        return 1;
      }
      rd_kafka_poll(rk, 10);
    }
    if ((i & 1023) == 0) rd_kafka_poll(rk, 0);
  }
  rd_kafka_flush(rk, 120000);
  double secs = now_s() - t0;
  qsort(lat, delivered, sizeof(double), cmp);
  double p50 = delivered ? lat[delivered / 2] : -1, p99 = delivered ? lat[(long)(delivered * 0.99)] : -1;
  printf("{\"phase\":\"produce\",\"records\":%ld,\"failed\":%ld,\"seconds\":%.3f,\"p50_ms\":%.2f,\"p99_ms\":%.2f}\n", delivered,
         failed, secs, p50 * 1000, p99 * 1000);
  fflush(stdout);
  rd_kafka_destroy(rk);
  return failed ? 1 : 0;
}

static int consume(const char *bootstrap, const char *topic, long count) {
  char err[512];
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  set(conf, "bootstrap.servers", bootstrap);
  set(conf, "group.id", "rdkafka-bench");
  set(conf, "enable.auto.commit", "false");
  set(conf, "fetch.wait.max.ms", "100");
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  if (!rk) {
    fprintf(stderr, "%s\n", err);
    return 2;
  }
  rd_kafka_poll_set_consumer(rk);
  rd_kafka_topic_partition_list_t *parts = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(parts, topic, 0)->offset = RD_KAFKA_OFFSET_BEGINNING;
  rd_kafka_assign(rk, parts);
  long got = 0;
  double t0 = now_s(), last = t0;
  while (got < count && now_s() - last < 10) {
    rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 100);
    if (!m) continue;
    if (!m->err) {
      got++;
      last = now_s();
    }
    rd_kafka_message_destroy(m);
  }
  double secs = now_s() - t0;
  printf("{\"phase\":\"consume\",\"records\":%ld,\"seconds\":%.3f}\n", got, secs);
  fflush(stdout);
  rd_kafka_topic_partition_list_destroy(parts);
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
  return got == count ? 0 : 1;
}

static int mock(const char *topic, long count, int size, const char *acks) {
  char err[512];
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  rd_kafka_t *owner = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  rd_kafka_mock_cluster_t *mc = rd_kafka_mock_cluster_new(owner, 1);
  if (!mc) {
    fprintf(stderr, "mock cluster failed\n");
    return 2;
  }
  rd_kafka_mock_topic_create(mc, topic, 1, 1);
  const char *bootstrap = rd_kafka_mock_cluster_bootstraps(mc);
  /* Produce only: the 2.0.2 mock's Fetch stalls after ~40k records (seen with this tool), so
   * its consume figure would measure the mock's bug, not a baseline. */
  int rc = produce(bootstrap, topic, count, size, acks);
  rd_kafka_mock_cluster_destroy(mc);
  rd_kafka_destroy(owner);
  return rc;
}

int main(int argc, char **argv) {
  if (argc == 7 && !strcmp(argv[1], "produce")) return produce(argv[2], argv[3], atol(argv[4]), atoi(argv[5]), argv[6]);
  if (argc == 5 && !strcmp(argv[1], "consume")) return consume(argv[2], argv[3], atol(argv[4]));
  if (argc == 6 && !strcmp(argv[1], "mock")) return mock(argv[2], atol(argv[3]), atoi(argv[4]), argv[5]);
  fprintf(stderr, "usage: see the comment at the top of rdkafka-bench.c\n");
  return 2;
}
