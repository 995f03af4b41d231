import Metrics
import Prometheus

/// A registry of its own (several receivers, or a receiver and a watch, may run in one process,
/// so none uses the global `MetricsSystem`), and the swift-metrics factory that makes metrics there.
public struct PrometheusExposition: Sendable {
    public let registry = PrometheusCollectorRegistry()
    public let factory: DescribedPrometheusFactory

    public init(help: [String: String], durationBuckets: [Duration]) {
        factory = DescribedPrometheusFactory(registry: registry, help: help, durationBuckets: durationBuckets)
    }

    /// Every metric in the text exposition format (0.0.4).
    public func text() -> [UInt8] { registry.emitToBuffer() }
}

/// `PrometheusMetricsFactory` gives a metric no HELP line; this one gives each the text `help`
/// has for its name, and its own duration buckets (in seconds on the wire).
public struct DescribedPrometheusFactory: MetricsFactory {
    let registry: PrometheusCollectorRegistry
    let help: [String: String]
    let durationBuckets: [Duration]
    private let plain: PrometheusMetricsFactory

    init(registry: PrometheusCollectorRegistry, help: [String: String], durationBuckets: [Duration]) {
        self.registry = registry
        self.help = help
        self.durationBuckets = durationBuckets
        var plain = PrometheusMetricsFactory(registry: registry)
        plain.defaultDurationHistogramBuckets = durationBuckets
        self.plain = plain
    }

    private func descriptor(_ label: String) -> MetricNameDescriptor? {
        help[label].map { MetricNameDescriptor(metricName: label, unitName: "", helpText: $0) }
    }

    public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        guard let descriptor = descriptor(label) else { return plain.makeCounter(label: label, dimensions: dimensions) }
        return registry.makeCounter(descriptor: descriptor, labels: dimensions)
    }

    public func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        guard let descriptor = descriptor(label) else { return plain.makeFloatingPointCounter(label: label, dimensions: dimensions) }
        return registry.makeCounter(descriptor: descriptor, labels: dimensions)
    }

    public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard !aggregate, let descriptor = descriptor(label) else { return plain.makeRecorder(label: label, dimensions: dimensions, aggregate: aggregate) }
        return registry.makeGauge(descriptor: descriptor, labels: dimensions)
    }

    public func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        guard let descriptor = descriptor(label) else { return plain.makeMeter(label: label, dimensions: dimensions) }
        return registry.makeGauge(descriptor: descriptor, labels: dimensions)
    }

    public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        guard let descriptor = descriptor(label) else { return plain.makeTimer(label: label, dimensions: dimensions) }
        return registry.makeDurationHistogram(descriptor: descriptor, labels: dimensions, buckets: durationBuckets)
    }

    public func destroyCounter(_ handler: any CounterHandler) { plain.destroyCounter(handler) }
    public func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) { plain.destroyFloatingPointCounter(handler) }
    public func destroyRecorder(_ handler: any RecorderHandler) { plain.destroyRecorder(handler) }
    public func destroyMeter(_ handler: any MeterHandler) { plain.destroyMeter(handler) }
    public func destroyTimer(_ handler: any TimerHandler) { plain.destroyTimer(handler) }
}
