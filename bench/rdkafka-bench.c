/*
 * Tiny librdkafka (Debian librdkafka-dev) producer/consumer for the broker benchmark.
 * Compiled at bench time: cc -O2 -o rdkafka-bench bench/rdkafka-bench.c -lrdkafka
 *
 *   rdkafka-bench produce <bootstrap> <topic> <count> <size> <acks>
 *   rdkafka-bench consume <bootstrap> <topic> <count>
 *   rdkafka-bench mock <topic> <count> <size> <acks>   (produce to librdkafka's in-memory mock cluster)
 *   rdkafka-bench catchup <bootstrap> <topic>   (partition 0 from the beginning to its end)
 *   rdkafka-bench sink <port> <bytes>   (bench/catch-up.ts's raw floor: counts <bytes> from a socket)
 *
 * Prints one JSON line per phase: records, seconds, and for produce the p50/p99 latency from
 * produce() to the delivery report (which includes time spent queued in the client); catchup
 * adds the bytes of keys and values and the client's own CPU seconds. RDKAFKA_BENCH_PRODUCER_CONF
 * and RDKAFKA_BENCH_CONSUMER_CONF ("key=value,key=value") set more properties for produce and
 * catchup (batch.size, fetch sizes).
 */
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

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

static double cpu_s(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* "k=v,k=v" from the environment onto conf (the string is copied: strtok writes into it). */
static void set_from_env(rd_kafka_conf_t *conf, const char *name) {
  const char *env = getenv(name);
  if (!env) return;
  char *copy = strdup(env), *save = NULL;
  for (char *kv = strtok_r(copy, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(kv, '=');
    if (!eq) continue;
    *eq = 0;
    set(conf, kv, eq + 1);
  }
  free(copy);
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
  set_from_env(conf, "RDKAFKA_BENCH_PRODUCER_CONF");
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
  double t0 = now_s(), c0 = cpu_s();
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
  double secs = now_s() - t0, cpu = cpu_s() - c0;
  qsort(lat, delivered, sizeof(double), cmp);
  double p50 = delivered ? lat[delivered / 2] : -1, p99 = delivered ? lat[(long)(delivered * 0.99)] : -1;
  /* cpu_s: this process from the first produce() to the flush (the mock's broker included) */
  printf("{\"phase\":\"produce\",\"records\":%ld,\"failed\":%ld,\"seconds\":%.3f,\"p50_ms\":%.2f,\"p99_ms\":%.2f,"
         "\"cpu_s\":%.4f}\n",
         delivered, failed, secs, p50 * 1000, p99 * 1000, cpu);
  fflush(stdout);
  rd_kafka_destroy(rk);
  return failed ? 1 : 0;
}

/* A consumer of `conf` and the assignment it gets (partition 0 of `topic` from its first offset):
 * not assigned yet, so that the caller's clock starts at rd_kafka_assign. */
static rd_kafka_t *new_consumer(rd_kafka_conf_t *conf, const char *topic, rd_kafka_topic_partition_list_t **parts) {
  char err[512];
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  if (!rk) {
    fprintf(stderr, "%s\n", err);
    return NULL;
  }
  rd_kafka_poll_set_consumer(rk);
  *parts = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(*parts, topic, 0)->offset = RD_KAFKA_OFFSET_BEGINNING;
  return rk;
}

static int consume(const char *bootstrap, const char *topic, long count) {
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  set(conf, "bootstrap.servers", bootstrap);
  set(conf, "group.id", "rdkafka-bench");
  set(conf, "enable.auto.commit", "false");
  set(conf, "fetch.wait.max.ms", "100");
  rd_kafka_topic_partition_list_t *parts;
  rd_kafka_t *rk = new_consumer(conf, topic, &parts);
  if (!rk) return 2;
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

/* Where a catch-up's time goes, from librdkafka's own protocol log (debug=protocol, two lines per
 * Fetch, written by the broker thread): the Fetches, the sum of their round trips (request sent →
 * whole response received: the broker's work and the transfer) and the sum of the gaps from a
 * response's arrival to the next request (the client parsing the response, deciding to fetch),
 * over the Fetches that returned records. */
static long fetches;
static long long fetch_bytes;
static double fetch_rtt_s, fetch_gap_s, fetch_received_at = -1;

static void fetch_log_cb(const rd_kafka_t *rk, int level, const char *fac, const char *buf) {
  (void)rk;
  const char *r = strstr(buf, "Received FetchResponse (");
  if (r) {
    const char *comma = strchr(r, ',');
    const char *rtt = strstr(r, "rtt ");
    long long size = comma ? atoll(comma + 1) : 0;
    /* Only answers with records (a 1 KiB record does not fit in less): the last Fetch, at the
     * high watermark, waits fetch.wait.max.ms for nothing. */
    if (size < 1024 || !rtt) return;
    fetch_bytes += size;
    fetch_rtt_s += atof(rtt + 4) / 1000;
    fetches++;
    fetch_received_at = now_s();
  } else if (strstr(buf, "Sent FetchRequest (")) {
    if (fetch_received_at >= 0) fetch_gap_s += now_s() - fetch_received_at;
    fetch_received_at = -1;
  } else if (level <= 4 || getenv("RDKAFKA_BENCH_DEBUG")) { /* warnings and errors as librdkafka prints them */
    fprintf(stderr, "%%%d|%s|%s\n", level, fac, buf);
  }
}

/* Reads partition 0 from its first offset until librdkafka reports its end (a catch-up read). */
static int catchup(const char *bootstrap, const char *topic) {
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  set(conf, "bootstrap.servers", bootstrap);
  set(conf, "group.id", "rdkafka-bench-catchup");
  set(conf, "enable.auto.commit", "false");
  set(conf, "enable.partition.eof", "true");
  char debug[256];
  snprintf(debug, sizeof debug, "protocol%s%s", getenv("RDKAFKA_BENCH_DEBUG") ? "," : "",
           getenv("RDKAFKA_BENCH_DEBUG") ? getenv("RDKAFKA_BENCH_DEBUG") : "");
  set(conf, "debug", debug);
  rd_kafka_conf_set_log_cb(conf, fetch_log_cb);
  set_from_env(conf, "RDKAFKA_BENCH_CONSUMER_CONF");
  rd_kafka_topic_partition_list_t *parts;
  rd_kafka_t *rk = new_consumer(conf, topic, &parts);
  if (!rk) return 2;
  long records = 0, errors = 0;
  long long bytes = 0;
  int at_end = 0;
  /* first/last record: the throughput excludes librdkafka's start (its first ListOffsets waits
   * ~0.5 s) and the end, reported only by a Fetch at the high watermark that waits
   * fetch.wait.max.ms (500 ms by default) for data that never comes. The clock is read when
   * the queue of fetched records runs dry, not per record (on this VM clock_gettime per record
   * was a quarter of the client's CPU): the last record's time is that of the first empty poll
   * after it, or of the end-of-partition event when that came first. */
  double cpu0 = cpu_s(), t0 = now_s(), first = -1, last_record = -1, progress = t0;
  long unclocked = 0; /* records since the clock was last read */
  rd_kafka_assign(rk, parts);
  while (!at_end) {
    rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 0);
    if (!m) {
      double t = now_s();
      if (unclocked > 0) progress = last_record = t;
      else if (t - progress > 30) break;
      unclocked = 0;
      m = rd_kafka_consumer_poll(rk, 100);
      if (!m) continue;
    }
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      at_end = 1;
      if (unclocked > 0) last_record = now_s();
    } else if (m->err) {
      if (errors++ < 5) fprintf(stderr, "consume: %s\n", rd_kafka_message_errstr(m));
    } else {
      if (first < 0) first = now_s();
      unclocked++;
      records++;
      bytes += m->len + m->key_len;
    }
    rd_kafka_message_destroy(m);
  }
  double secs = now_s() - t0, cpu = cpu_s() - cpu0;
  printf("{\"phase\":\"catchup\",\"records\":%ld,\"bytes\":%lld,\"seconds\":%.4f,\"first_s\":%.4f,"
         "\"last_s\":%.4f,\"cpu_s\":%.3f,\"errors\":%ld,\"at_end\":%s,\"fetches\":%ld,\"fetch_bytes\":%lld,"
         "\"fetch_rtt_s\":%.4f,\"fetch_gap_s\":%.4f}\n",
         records, bytes, secs, first < 0 ? -1 : first - t0, last_record < 0 ? -1 : last_record - t0, cpu, errors,
         at_end ? "true" : "false", fetches, fetch_bytes, fetch_rtt_s, fetch_gap_s);
  fflush(stdout);
  rd_kafka_topic_partition_list_destroy(parts);
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
  return at_end && !errors ? 0 : 1;
}

/* The reading end of bench/catch-up.ts's raw floor, as cheap as a reader gets: connects to
 * 127.0.0.1:<port>, reads <total> bytes into one reused 1 MiB buffer, answers one byte. */
static int sink(int port, long long total) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
    perror("sink: connect");
    return 2;
  }
  static char buf[1 << 20];
  long long got = 0;
  double cpu0 = -1;
  while (got < total) {
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) {
      fprintf(stderr, "sink: connection ended after %lld of %lld bytes\n", got, total);
      return 1;
    }
    if (cpu0 < 0) cpu0 = cpu_s();
    got += n;
  }
  double cpu = cpu_s() - cpu0;
  if (write(fd, "k", 1) != 1) return 1;
  printf("{\"phase\":\"sink\",\"bytes\":%lld,\"cpu_s\":%.4f}\n", got, cpu);
  fflush(stdout);
  close(fd);
  return 0;
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
  if (argc == 4 && !strcmp(argv[1], "sink")) return sink(atoi(argv[2]), atoll(argv[3]));
  if (argc == 4 && !strcmp(argv[1], "catchup")) return catchup(argv[2], argv[3]);
  if (argc == 6 && !strcmp(argv[1], "mock")) return mock(argv[2], atol(argv[3]), atoi(argv[4]), argv[5]);
  fprintf(stderr, "usage: see the comment at the top of rdkafka-bench.c\n");
  return 2;
}
