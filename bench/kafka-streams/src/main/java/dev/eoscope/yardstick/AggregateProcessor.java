package dev.eoscope.yardstick;

import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * eoscope's task step for one record: read the key's aggregate, apply the value, write it to the
 * store (and so to its changelog), and send one output record with the updated aggregate.
 */
final class AggregateProcessor implements Processor<String, String, String, String> {
  private ProcessorContext<String, String> context;
  private KeyValueStore<String, Aggregate> store;

  @Override
  public void init(ProcessorContext<String, String> context) {
    this.context = context;
    this.store = context.getStateStore(YardstickApp.STORE);
  }

  @Override
  public void process(Record<String, String> record) {
    Long value = Aggregate.parseInput(record.value());
    // A value that does not parse (the bench writes none) is skipped, where eoscope dead-letters it.
    if (value == null || record.key() == null) return;
    RecordMetadata source = context.recordMetadata().orElseThrow();
    Aggregate next = Aggregate.apply(store.get(record.key()), value, record.key(), source.partition(), source.offset());
    store.put(record.key(), next);
    context.forward(record.withValue(next.json));
  }
}
