"""The table of scripts/doc-blocks/check: what each ```swift block of README.md and of the DocC
articles needs around it to compile in a user's module, or why it is not compiled.

ENTRIES maps a block's key, `<document stem>: <first line of the block, stripped>` (with ` #2`,
` #3` … for a later block of the same document with the same first line), to an Entry. Every
block needs one, and every entry must match a block: when a block's first line changes, rename
its key (the check names the closest stale key).

An Entry gives:
  imports  modules imported at the top of the scaffolding (the core library unless told);
           the generated target depends on whatever the file imports
  before   scaffolding above the block: the declarations it assumes (a bus, an event type…)
  after    scaffolding below the block
  place    instead of `after`, a function that splits the block around scaffolding (a fragment
           the doc says goes "inside" a method): it takes the block's text and returns (kind,
           text) segments, kind "block" or "scaffold"; the check verifies that the "block"
           segments, joined, are the block, and puts `before` above them
  replace  (old, new) pairs applied to the block's text (`…` placeholders); the summary lists them
  test     a test target instead of an executable's main.swift (the block has #expect or @Test)
  skip     not compiled, and why
  defect   a real documentation defect: the block is built and the check fails until the doc is
           fixed and the mark removed

Scaffolding declares only what a block assumes and leaves the block's own declarations alone:
it never shadows a library API and states no `@unchecked Sendable` that the docs do not state.
"""
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional


@dataclass(frozen=True)
class Entry:
    imports: tuple = ("EventDrivenSwift",)
    before: str = ""
    after: str = ""
    place: Optional[Callable] = None
    replace: tuple = ()
    test: bool = False
    skip: Optional[str] = None
    defect: Optional[str] = None


# ---- shared snippets --------------------------------------------------------------------------

BUS = 'let bus = EventBus(label: "docs")\n'

# `@Observable` is Observation's macro; a SwiftUI app has it through `import SwiftUI`.
OBSERVATION = "import Observation\n"

# Declarations of the README that other blocks assume are read from the README itself, so that
# the scaffolding repeats none of them by hand and cannot drift from them.
README = Path(__file__).resolve().parent.parent.parent / "README.md"


def from_readme(first, last=None):
    """The README's lines from the one that reads `first` (with the attribute lines right above
    it, such as `@MainActor`) to the one that reads `last`, or to the first `}` at the start of a
    line after it; each line as written, with its newline."""
    lines = README.read_text(encoding="utf-8").splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip("\n") == first), None)
    if start is None:
        raise ValueError("scaffolds.py: the README has no line %r" % first)
    head = start
    while head > 0 and lines[head - 1].startswith("@"):
        head -= 1
    for end in range(start, len(lines)):
        text = lines[end].rstrip("\n")
        if text == last or (last is None and text == "}"):
            return "".join(lines[head:end + 1])
    raise ValueError("scaffolds.py: the README's %r has no end" % first)


# The README's "Events" block (also GettingStarted's first block).
TEMPERATURE_EVENT = from_readme("struct TemperatureEvent: Eventable {")

# The README's EventThread block: its enum, and its class in two parts so that a fragment the
# README places "inside onTemperatureEvent:" can go between them. The class is the README's own,
# `@unchecked Sendable` included (the README says why an EventThread subclass states it).
TEMPERATURE_RATING = from_readme("enum TemperatureRating: String, Sendable {")
PROCESSOR_HEAD = from_readme(
    "final class TemperatureProcessor: EventThread, @unchecked Sendable {  // state below is lock-protected",
    "        temperatureRating = TemperatureRating.fromTemperature(event.temperatureInCelsius)")
PROCESSOR_TAIL = "    }\n}\n"
TEMPERATURE_PROCESSOR = TEMPERATURE_EVENT + TEMPERATURE_RATING + PROCESSOR_HEAD + PROCESSOR_TAIL

# The README's TemperatureRatingEvent (its "inside onTemperatureEvent:" block).
RATING_EVENT = from_readme("struct TemperatureRatingEvent: Eventable {")

# The README's TemperatureRatingViewModel block, in two parts so that a method can go between.
_VIEW_MODEL = from_readme("final class TemperatureRatingViewModel {")
_VIEW_MODEL_SPLIT = _VIEW_MODEL.index("    func onTemperatureRatingEvent(")
VIEW_MODEL_HEAD = _VIEW_MODEL[:_VIEW_MODEL_SPLIT]
VIEW_MODEL_TAIL = _VIEW_MODEL[_VIEW_MODEL_SPLIT:]

# What the error-handler blocks call.
ERROR_HANDLER_CALLS = """\
func retryLater(_ event: (any Eventable)?) {}
func slowDown() {}
"""

# A service to run beside the bus, and the logger the blocks pass around.
SERVICE_GROUP = """\
import EventDrivenSwiftServiceLifecycle
import ServiceLifecycle
import Logging
struct HTTPServer: Service { func run() async throws { try await gracefulShutdown() } }
let httpServer = HTTPServer()
let logger = Logger(label: "docs")
"""

# GettingStarted's first SwiftUI model (its second block extends it).
GETTING_STARTED_THERMOMETER = """\
@MainActor @Observable final class Thermometer {
    var celsius: Float = 0

    init(bus: EventBus = EventCentral.shared) {
        bus.listen(TemperatureEvent.self, owner: self) { owner, event in
            owner.celsius = event.temperatureInCelsius
        }
    }
}
"""

NATS = ("EventDrivenSwift", "EventDrivenSwiftNATS")

# BeyondOneProcess's first block: its event type and registry.
ORDER_PLACED_V1 = """\
struct OrderPlaced: Eventable, Codable {
    var orderID: Int
    var customerID: Int
    var amount: Double
}
"""
REGISTERED_V1 = """\
let events = NATSEventRegistry()
try events.register(OrderPlaced.self, name: "orders.placed", version: 1)
"""

# BeyondOneProcess's versioning section: version 2 of the event (a currency added) and version 1.
ORDER_PLACED_V2 = """\
struct OrderPlaced: Eventable, Codable {
    var orderID: Int
    var customerID: Int
    var amount: Double
    var currency: String
}
struct OrderPlacedV1: Decodable, Sendable {
    var orderID: Int
    var customerID: Int
    var amount: Double
}
"""

TESTED_IN_ARTICLE_EXAMPLES = (
    "compiled and run in Tests/EventDrivenSwiftTestingTests/ArticleExamples.swift, which "
    "ArticleExamplesCheckTests requires to contain it unchanged")


# ---- fragments placed inside a method -------------------------------------------------------

def cut(block, marker):
    """Splits a block around the part that starts at the line `marker` and ends before the next
    blank line: returns (lines before it, the part, lines after it)."""
    lines = block.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.strip() == marker]
    if not starts:
        raise ValueError("no line %r in the block" % marker)
    start = starts[0]
    end = start + 1
    while end < len(lines) and lines[end].strip():
        end += 1
    return "".join(lines[:start]), "".join(lines[start:end]), "".join(lines[end:])


def inside_on_temperature_event(block):
    """The README's `// inside onTemperatureEvent:` lines go into the body of the README's
    TemperatureProcessor.onTemperatureEvent; the lines around them stay at the top level, and
    the processor the README creates with the class follows it."""
    above, fragment, below = cut(block, "// inside onTemperatureEvent:")
    return [
        ("block", above),
        ("scaffold", PROCESSOR_HEAD),
        ("block", fragment),
        ("scaffold", PROCESSOR_TAIL + "let temperatureProcessor = TemperatureProcessor()\n"),
        ("block", below),
    ]


def inside_view_model(block):
    """The README's lines `// inside TemperatureRatingViewModel (above):` go into a method of
    that class (the README's block above them)."""
    return [
        ("scaffold", VIEW_MODEL_HEAD + "    func registerMore() {\n"),
        ("block", block),
        ("scaffold", "    }\n\n" + VIEW_MODEL_TAIL),
    ]


# ---- the table --------------------------------------------------------------------------------

ENTRIES = {
    # ---- README.md ----
    'README: .package(path: "../EventDrivenSwift"),': Entry(
        skip="a Package.swift dependency entry, not a module's source"),
    "README: struct Reading: Eventable { let celsius: Double }": Entry(
        before=OBSERVATION + BUS),
    "README: struct TemperatureEvent: Eventable { let celsius: Double }"
    "    // an event: an immutable Sendable value": Entry(),
    "README: struct TemperatureEvent: Eventable {": Entry(),
    "README: let temperatureEvent = TemperatureEvent(temperatureInCelsius: 23.25)": Entry(
        before=TEMPERATURE_EVENT),
    "README: let handle = temperatureEvent.scheduleQueue(at: DispatchTime.now()"
    " + TimeInterval().advanced(by: 4), priority: .highest)": Entry(
        before=TEMPERATURE_EVENT + "let temperatureEvent = TemperatureEvent(temperatureInCelsius: 23.25)\n"),
    "README: enum TemperatureRating: String, Sendable {": Entry(
        before=TEMPERATURE_EVENT),
    "README: protocol TemperatureProcessorObserver: AnyObject {": Entry(
        before=TEMPERATURE_EVENT + TEMPERATURE_RATING, place=inside_on_temperature_event),
    "README: struct TemperatureRatingEvent: Eventable {": Entry(
        before=TEMPERATURE_EVENT + TEMPERATURE_RATING, place=inside_on_temperature_event),
    "README: @MainActor": Entry(
        before=TEMPERATURE_RATING + RATING_EVENT),
    "README: // inside TemperatureRatingViewModel (above):": Entry(
        before=TEMPERATURE_RATING + RATING_EVENT, place=inside_view_model),
    'README: let bus = EventBus(label: "Game")': Entry(
        before=TEMPERATURE_PROCESSOR),
    "README: let readings = bus.events(of: TemperatureEvent.self, bufferingPolicy: .bufferingNewest(100))"
    "   // subscribed here": Entry(
        before=TEMPERATURE_EVENT + BUS + """\
actor Thermostat { var readings: [Float] = [] }  // SwiftConcurrency's actor
let thermostat = Thermostat()
"""),
    "README: let temperatureProcessorPool = EventPool<TemperatureProcessor>(capacity: 5)": Entry(
        before=TEMPERATURE_PROCESSOR),
    "README: let pool = EventPool<TemperatureProcessor>(capacity: 5, balancer: EventPoolRoundRobinBalancer())": Entry(
        before=TEMPERATURE_PROCESSOR),
    "README: let pool = EventPool<OrderProcessor>(": Entry(
        before="""\
struct OrderEvent: Eventable { let customerID: Int }
typealias OrderProcessor = EventThread  // any EventThread class
"""),
    "README: let pool = EventPool<TemperatureProcessor>(": Entry(
        before=TEMPERATURE_PROCESSOR),
    "README: let metrics = pool.metrics          // threads, pending per thread, handled per thread": Entry(
        before=TEMPERATURE_PROCESSOR + "let pool = EventPool<TemperatureProcessor>(capacity: 5)\n"),
    "README: enum MyEvents {": Entry(
        before="struct InterestingMessage: Sendable { let string: String; let number: Int }\n"),
    'README: let scores = EventChannel<Int>(label: "scores")': Entry(
        before=TEMPERATURE_PROCESSOR + BUS,
        replace=(("{ score in … }", "{ score in _ = score }"),)),
    "README: struct NavigationEvent: Eventable { let destination: Destination }": Entry(
        before="""\
enum Destination: Sendable { case screenOne, screenTwo }
func navigateTo(_ destination: Destination) {}
func showPrizeUI() {}
func hidePrizeUI() {}
final class AnalyticsMediator: EventConsumer, Sendable {
    var willConsume: [any Eventable.Type] { [AllEvents.self] }
    func consume(_ event: any Eventable) {}
}
let eventBus = EventBus()
let model = Model(eventBus: eventBus)        // the block's Model and FlowController
let flowController = FlowController()
"""),
    "README: import EventDrivenSwift": Entry(
        imports=(), after=TEMPERATURE_EVENT, test=True),
    "README: bus.setErrorHandler { error in": Entry(
        before=BUS + ERROR_HANDLER_CALLS),
    "README: import EventDrivenSwiftObservability          // swift-metrics and swift-distributed-tracing": Entry(),
    'README: let bus = EventBus(label: "orders", logger: logger)': Entry(
        before=SERVICE_GROUP),
    'README: .product(name: "EventDrivenSwiftNATS", package: "EventDrivenSwift")   // in your target': Entry(
        imports=NATS,
        before="""\
import ServiceLifecycle
import Logging
struct OrderPlaced: Eventable, Codable { let id: Int }
func charge(_ order: OrderPlaced) async throws {}
let logger = Logger(label: "docs")
""" + BUS,
        # The first line is the target's dependency in Package.swift (the generated manifest has it).
        replace=(('.product(name: "EventDrivenSwiftNATS", package: "EventDrivenSwift")',
                  '// .product(name: "EventDrivenSwiftNATS", package: "EventDrivenSwift")'),)),

    # ---- EventDrivenSwift.docc ----
    "ChannelsStatesAndConsumers: enum ChatChannels {": Entry(
        before=BUS),
    'ChannelsStatesAndConsumers: func moves(of player: Int) -> EventChannel<Move>'
    ' { EventChannel(label: "Moves", key: player) }': Entry(
        before=BUS + "struct Move: Sendable { let x, y: Int }\n",
        replace=(("{ move in … }", "{ move in _ = move }"),)),
    'ChannelsStatesAndConsumers: let volume = EventState<Int>(label: "Volume")': Entry(
        before=BUS),
    "ChannelsStatesAndConsumers: bus.subscribe(ChatChannels.lines) { subscription, line in": Entry(
        before=BUS + 'enum ChatChannels { static let lines = EventChannel<String>(label: "Chat lines") }\n'),
    "ChannelsStatesAndConsumers: bus.subscribe(volume, on: .synchronous) { … }"
    "        // the setter's thread, before set returns": Entry(
        before=BUS + """\
let volume = EventState<Int>(label: "Volume")
let audioQueue = DispatchQueue(label: "audio")
let mixer = EventThread()
""",
        replace=(("{ … }", "{ level in _ = level }"),)),
    "ChannelsStatesAndConsumers: final class Analytics: EventConsumer, Sendable {": Entry(
        before=BUS + """\
struct HeartbeatEvent: Eventable {}
func record(_ event: any Eventable) {}
let analytics = Analytics()                  // the block's Analytics
"""),
    "EventDrivenSwift: struct TemperatureEvent: Eventable {": Entry(),
    "GettingStarted: struct TemperatureEvent: Eventable {": Entry(),
    "GettingStarted: @MainActor @Observable final class Thermometer {": Entry(
        before=OBSERVATION + TEMPERATURE_EVENT),
    'GettingStarted: enum Kitchen { static let mode = EventState<String>(label: "mode") }': Entry(
        before=OBSERVATION + TEMPERATURE_EVENT + GETTING_STARTED_THERMOMETER),
    "GettingStarted: TemperatureEvent(temperatureInCelsius: 23.25).queue()": Entry(
        before=TEMPERATURE_EVENT + 'enum Kitchen { static let mode = EventState<String>(label: "mode") }\n'),
    "GettingStarted: final class TemperatureProcessor: EventThread, @unchecked Sendable"
    " {  // state is lock-protected": Entry(
        before=TEMPERATURE_EVENT),
    "GettingStarted: let handle = bus.listen(TemperatureEvent.self, executeOn: .listenerThread)"
    " { event, metadata in": Entry(
        before=TEMPERATURE_EVENT + BUS),
    "GettingStarted: @MainActor final class Model {": Entry(
        before=TEMPERATURE_EVENT),
    'GettingStarted: let bus = EventBus(label: "Tests")': Entry(
        before=TEMPERATURE_EVENT),
    "Guarantees: bus.setErrorHandler { error in": Entry(
        before=BUS + ERROR_HANDLER_CALLS),
    "Observability: struct SlowHandlerAlarm: EventInterceptor {": Entry(
        before=BUS),
    'Observability: let bus = EventBus(label: "orders", propagatesServiceContext: true)': Entry(
        before="""\
import Instrumentation  // ServiceContext
struct OrderPlaced: Eventable { let id: Int }
var requestContext = ServiceContext.topLevel
"""),
    'Observability: let bus = EventBus(label: "orders", logger: logger)': Entry(
        before=SERVICE_GROUP),
    "Observability: import EventDrivenSwiftObservability": Entry(
        before=BUS),
    "Observability: let recorder = EventFlowRecorder()": Entry(
        before="import EventDrivenSwiftObservability\n" + BUS),
    "SwiftConcurrency: let readings = bus.events(of: TemperatureEvent.self)": Entry(
        before=TEMPERATURE_EVENT + BUS),
    "SwiftConcurrency: bus.listenAsync(OrderPlaced.self) { order in": Entry(
        before=BUS + """\
actor Inventory { func reserve(_ items: [String]) async throws {} }  // the README's actor
let inventory = Inventory()
struct OrderPlaced: Eventable { let items: [String] }
"""),
    "SwiftConcurrency: bus.listenAsync(TemperatureEvent.self) { @MainActor reading in": Entry(
        before=TEMPERATURE_EVENT + BUS + """\
@MainActor final class Label { var text = "" }
let label = Label()                          // main.swift's top level is on the main actor
"""),
    "SwiftConcurrency: actor Thermostat {": Entry(
        before=TEMPERATURE_EVENT + BUS),
    "SwiftConcurrency: @MainActor @Observable final class Thermometer {": Entry(
        before=OBSERVATION + TEMPERATURE_EVENT),
    "SwiftConcurrency: TemperatureEvent(temperatureInCelsius: 21).queue(on: bus)": Entry(
        imports=("EventDrivenSwift", "Testing"), test=True,
        before=TEMPERATURE_EVENT + """\
@MainActor final class Display {
    var lastReading: Float?
    init(bus: EventBus) {
        bus.listen(TemperatureEvent.self, owner: self) { owner, event in owner.lastReading = event.temperatureInCelsius }
    }
}

@Test @MainActor func drainInATest() async {
    let bus = EventBus(label: "docs")
    let display = Display(bus: bus)
""",
        after="}\n"),

    # ---- EventDrivenSwiftNATS.docc (compiled only: nothing connects) ----
    "BeyondOneProcess: import EventDrivenSwift": Entry(imports=()),  # a whole program
    'BeyondOneProcess: try events.register(OrderPlaced.self, name: "orders.placed", version: 2)': Entry(
        imports=NATS, before=ORDER_PLACED_V2 + "let events = NATSEventRegistry()\n"),
    "BeyondOneProcess: for await letter in bus.deadLetters() {": Entry(
        imports=NATS + ("Logging",), before=BUS + 'let logger = Logger(label: "docs")\n'),
    'BeyondOneProcess: let bridge = try NATSBridge(bus: bus, events: events,'
    ' server: "nats://a:4222,nats://b:4222,nats://c:4222")': Entry(
        imports=NATS, before=ORDER_PLACED_V1 + BUS + REGISTERED_V1),
    "BeyondOneProcess: var configuration = NATSBridgeConfiguration()": Entry(
        imports=NATS),
    'BeyondOneProcess: var client = try NATSClientConfiguration(server: "nats://127.0.0.1:4222")': Entry(
        imports=NATS, before=ORDER_PLACED_V1 + BUS + REGISTERED_V1),

    # ---- EventDrivenSwiftTesting.docc ----
    "TestingYourCode: // Package.swift": Entry(
        skip="a Package.swift excerpt (the test target's declaration), not a module's source"),
    "TestingYourCode: struct TemperatureEvent: Eventable, Equatable {": Entry(skip=TESTED_IN_ARTICLE_EXAMPLES),
    "TestingYourCode: @Test func alarmsAboveThirty() async throws {": Entry(skip=TESTED_IN_ARTICLE_EXAMPLES),
    "TestingYourCode: @Test func twoReadingsRaiseTwoAlarms() async throws {": Entry(skip=TESTED_IN_ARTICLE_EXAMPLES),
    "TestingYourCode: @Test func alarmsAboveThirtyAtOnce() {": Entry(skip=TESTED_IN_ARTICLE_EXAMPLES),
    "TestingYourCode: struct ReminderEvent: Eventable {}": Entry(skip=TESTED_IN_ARTICLE_EXAMPLES),
    "TestingYourCode: final class FreshReadings: Sendable {": Entry(skip=TESTED_IN_ARTICLE_EXAMPLES),
}
