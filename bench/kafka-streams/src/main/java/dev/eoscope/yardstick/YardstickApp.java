package dev.eoscope.yardstick;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.state.Stores;

/**
 * The Kafka Streams application npm run bench:kafka measures beside eoscope.
 *
 * <pre>
 * java -cp 'target/kafka-streams-yardstick.jar:target/lib/*' dev.eoscope.yardstick.YardstickApp \
 *   --bootstrap HOST:PORT --application-id ID --guarantee at_least_once|exactly_once_v2 \
 *   --commit-interval-ms N [--threads 3] [--input ID-input] [--output ID-output]
 * </pre>
 *
 * Reads the input topic, keeps a per-key aggregate in an in-memory store with a changelog
 * (ID-aggregates-changelog, as eoscope names it), and writes one output record per input record.
 * Its consumer group is the application.id. Prints one line per state change on stdout
 * ("state RUNNING tasks=6"), and "commits N" (the stream threads' commit-total) when it stops; exits
 * 1 when a stream thread fails.
 */
public final class YardstickApp {
  static final String STORE = "aggregates";

  public static void main(String[] argv) throws InterruptedException {
    Map<String, String> args = parseArgs(argv);
    String appId = required(args, "application-id");
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, required(args, "bootstrap"));
    props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, required(args, "guarantee"));
    props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, required(args, "commit-interval-ms"));
    props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, args.getOrDefault("threads", "3"));
    // No record cache: every input record gives its output and changelog record at once, as in eoscope.
    props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, "0");
    props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    props.put(StreamsConfig.STATE_DIR_CONFIG, System.getProperty("java.io.tmpdir") + "/kafka-streams-yardstick");

    KafkaStreams streams = new KafkaStreams(topology(args.getOrDefault("input", appId + "-input"), args.getOrDefault("output", appId + "-output")), props);
    CountDownLatch done = new CountDownLatch(1);
    boolean[] failed = {false};
    streams.setUncaughtExceptionHandler(e -> {
      System.err.println("stream thread failed: " + e);
      failed[0] = true;
      return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    });
    streams.setStateListener((now, before) -> {
      int tasks = 0;
      if (now == KafkaStreams.State.RUNNING) for (ThreadMetadata t : streams.metadataForLocalThreads()) tasks += t.activeTasks().size();
      System.out.println("state " + now + " tasks=" + tasks);
      if (now == KafkaStreams.State.ERROR || now == KafkaStreams.State.PENDING_ERROR) done.countDown();
    });
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      done.countDown();
      System.out.println("commits " + commits(streams));
      if (streams.close(Duration.ofSeconds(20))) streams.cleanUp();
    }));
    streams.start();
    done.await();
    if (failed[0]) {
      streams.close(Duration.ofSeconds(5));
      System.exit(1);
    }
  }

  static Topology topology(String input, String output) {
    Topology t = new Topology();
    t.addSource("input", Serdes.String().deserializer(), Serdes.String().deserializer(), input);
    t.addProcessor("aggregate", AggregateProcessor::new, "input");
    t.addStateStore(
        Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(STORE), Serdes.String(), Aggregate.serde())
            .withLoggingEnabled(new HashMap<>())
            .withCachingDisabled(),
        "aggregate");
    t.addSink("output", output, Serdes.String().serializer(), Serdes.String().serializer(), "aggregate");
    return t;
  }

  /** The stream threads' commit-total: under exactly_once_v2, one transaction each. */
  static long commits(KafkaStreams streams) {
    double total = 0;
    for (Map.Entry<MetricName, ? extends Metric> m : streams.metrics().entrySet()) {
      MetricName n = m.getKey();
      if (n.name().equals("commit-total") && n.group().equals("stream-thread-metrics")) total += ((Number) m.getValue().metricValue()).doubleValue();
    }
    return Math.round(total);
  }

  private static Map<String, String> parseArgs(String[] argv) {
    Map<String, String> out = new HashMap<>();
    for (int i = 0; i + 1 < argv.length; i += 2) {
      if (!argv[i].startsWith("--")) throw new IllegalArgumentException("expected --name value, got " + argv[i]);
      out.put(argv[i].substring(2), argv[i + 1]);
    }
    return out;
  }

  private static String required(Map<String, String> args, String name) {
    String v = args.get(name);
    if (v == null) {
      System.err.println("missing --" + name);
      System.exit(2);
    }
    return v;
  }
}
