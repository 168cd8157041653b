package dev.eoscope.yardstick;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/**
 * A key's running aggregate and the JSON eoscope writes for it, on the output topic and in the
 * changelog alike (lib/records.ts, encodeOutputValue):
 * {"key":K,"count":N,"sum":N,"min":N,"max":N,"source":{"partition":P,"offset":O}}, where source is
 * the input record that produced it. eoscope's validator reads both topics of this application.
 */
final class Aggregate {
  final long count;
  final long sum;
  final long min;
  final long max;
  /** The value as written: the store's bytes, the changelog record and the output record. */
  final String json;

  private Aggregate(long count, long sum, long min, long max, String json) {
    this.count = count;
    this.sum = sum;
    this.min = min;
    this.max = max;
    this.json = json;
  }

  /** Applies one input value to the key's previous aggregate (null: none yet). */
  static Aggregate apply(Aggregate prev, long value, String key, int partition, long offset) {
    long count = prev == null ? 1 : prev.count + 1;
    long sum = prev == null ? value : prev.sum + value;
    long min = prev == null ? value : Math.min(prev.min, value);
    long max = prev == null ? value : Math.max(prev.max, value);
    String json = "{\"key\":" + jsonString(key) + ",\"count\":" + count + ",\"sum\":" + sum + ",\"min\":" + min + ",\"max\":" + max
        + ",\"source\":{\"partition\":" + partition + ",\"offset\":" + offset + "}}";
    return new Aggregate(count, sum, min, max, json);
  }

  /** Reads count, sum, min and max back from a stored value (the key and source are not needed). */
  static Aggregate parse(String json) {
    return new Aggregate(field(json, "\"count\":"), field(json, "\"sum\":"), field(json, "\"min\":"), field(json, "\"max\":"), json);
  }

  private static long field(String json, String name) {
    int i = json.indexOf(name);
    if (i < 0) throw new IllegalArgumentException("not an aggregate: " + json);
    i += name.length();
    int end = i;
    while (end < json.length() && (json.charAt(end) == '-' || Character.isDigit(json.charAt(end)))) end++;
    return Long.parseLong(json, i, end, 10);
  }

  /** A JSON string literal. */
  static String jsonString(String s) {
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.append('"').toString();
  }

  /** Input values are integers written as decimal text (lib/records.ts, parseInputValue); null otherwise. */
  static Long parseInput(String value) {
    if (value == null || value.isEmpty() || value.length() > 16) return null;
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  static Serde<Aggregate> serde() {
    Serializer<Aggregate> ser = (topic, a) -> a == null ? null : a.json.getBytes(StandardCharsets.UTF_8);
    Deserializer<Aggregate> de = (topic, bytes) -> bytes == null ? null : parse(new String(bytes, StandardCharsets.UTF_8));
    return Serdes.serdeFrom(ser, de);
  }
}
