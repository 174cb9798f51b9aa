// The part of SwiftUI's interface that the SwiftUI examples of the documentation use
// (Tests/SwiftUIExamples), so that Scripts/typecheck-uikit.sh can typecheck them where SwiftUI does
// not exist: a renamed LiveCatalog or store API then fails CI instead of a reader's build.
// Bodies are empty: nothing here runs, and it is not SwiftUI's behaviour. Beside each member,
// `// SwiftUI:` gives the declaration from Apple's documentation it stands for; where a stand-in
// is simpler (fewer generic constraints, one overload of several), it says so.
@_exported import Foundation
@_exported import Observation

// SwiftUI: @MainActor @preconcurrency protocol View { associatedtype Body : View; @ViewBuilder @MainActor @preconcurrency var body: Self.Body { get } }
@MainActor @preconcurrency public protocol View {
    associatedtype Body: View
    @ViewBuilder var body: Body { get }
}

// SwiftUI: @frozen struct Never (as a View, a body that is never asked for)
extension Never: View {
    public var body: Never { fatalError() }
}

// SwiftUI: @resultBuilder struct ViewBuilder (the stand-in builds one or two views, and an optional one)
@resultBuilder public struct ViewBuilder {
    public static func buildBlock() -> EmptyView { EmptyView() }
    public static func buildBlock<Content: View>(_ content: Content) -> Content { content }
    public static func buildBlock<C0: View, C1: View>(_ c0: C0, _ c1: C1) -> TupleView<(C0, C1)> { TupleView((c0, c1)) }
    public static func buildIf<Content: View>(_ content: Content?) -> Content? { content }
}

extension Optional: View where Wrapped: View {
    public var body: Never { fatalError() }
}

// SwiftUI: @frozen struct EmptyView
public struct EmptyView: View {
    nonisolated public init() {}
    public var body: Never { fatalError() }
}

// SwiftUI: @frozen struct TupleView<T>
public struct TupleView<T>: View {
    nonisolated public init(_ value: T) {}
    public var body: Never { fatalError() }
}

// SwiftUI: @frozen @propertyWrapper struct State<Value> (wrappedValue, init(initialValue:))
@propertyWrapper public struct State<Value> {
    // SwiftUI: init(initialValue value: Value)
    nonisolated public init(initialValue value: Value) { storage = value }
    // SwiftUI: init(wrappedValue value: Value)
    nonisolated public init(wrappedValue value: Value) { storage = value }
    private var storage: Value
    // SwiftUI: var wrappedValue: Value { get nonmutating set }
    public var wrappedValue: Value {
        get { storage }
        nonmutating set {}
    }
}

// SwiftUI: struct Text
public struct Text: View {
    // SwiftUI: init<S>(_ content: S) where S : StringProtocol
    nonisolated public init<S: StringProtocol>(_ content: S) {}
    public var body: Never { fatalError() }
}

// SwiftUI: struct ProgressView<Label, CurrentValueLabel> (the stand-in: the indeterminate one)
public struct ProgressView: View {
    // SwiftUI: init() where Label == EmptyView, CurrentValueLabel == EmptyView
    nonisolated public init() {}
    public var body: Never { fatalError() }
}

// SwiftUI: struct List<SelectionValue, Content> where SelectionValue : Hashable, Content : View
public struct List<Content: View>: View {
    // SwiftUI: init<Data, RowContent>(_ data: Data, @ViewBuilder rowContent: @escaping (Data.Element) -> RowContent)
    //          where Content == ForEach<Data, Data.Element.ID, RowContent>, Data : RandomAccessCollection,
    //          RowContent : View, Data.Element : Identifiable
    nonisolated public init<Data: RandomAccessCollection, RowContent: View>(_ data: Data, @ViewBuilder rowContent: @escaping (Data.Element) -> RowContent)
        where Content == ForEach<Data, Data.Element.ID, RowContent>, Data.Element: Identifiable {}
    public var body: Never { fatalError() }
}

// SwiftUI: struct ForEach<Data, ID, Content> where Data : RandomAccessCollection, ID : Hashable
public struct ForEach<Data: RandomAccessCollection, ID: Hashable, Content>: View {
    // SwiftUI: init(_ data: Data, @ViewBuilder content: @escaping (Data.Element) -> Content)
    //          where ID == Data.Element.ID, Content : View, Data.Element : Identifiable
    nonisolated public init(_ data: Data, @ViewBuilder content: @escaping (Data.Element) -> Content) where ID == Data.Element.ID, Data.Element: Identifiable {}
    // SwiftUI: func onMove(perform action: ((IndexSet, Int) -> Void)?) -> some DynamicViewContent
    public func onMove(perform action: ((IndexSet, Int) -> Void)?) -> Self { self }
    public var body: Never { fatalError() }
}

// SwiftUI: struct Section<Parent, Content, Footer>
public struct Section<Content: View>: View {
    // SwiftUI: init<S>(_ title: S, @ViewBuilder content: () -> Content) where Parent == Text, Footer == EmptyView, S : StringProtocol
    nonisolated public init<S: StringProtocol>(_ title: S, @ViewBuilder content: () -> Content) {}
    public var body: Never { fatalError() }
}

// SwiftUI: struct GridItem
public struct GridItem: Sendable {
    // SwiftUI: enum Size { case fixed(CGFloat), flexible(minimum: CGFloat = 10, maximum: CGFloat = .infinity), adaptive(minimum: CGFloat, maximum: CGFloat = .infinity) }
    public enum Size: Sendable {
        case fixed(CGFloat)
        case flexible(minimum: CGFloat = 10, maximum: CGFloat = .infinity)
        case adaptive(minimum: CGFloat, maximum: CGFloat = .infinity)
    }
    // SwiftUI: init(_ size: GridItem.Size = .flexible(), spacing: CGFloat? = nil, alignment: Alignment? = nil) (the stand-in: without alignment)
    nonisolated public init(_ size: Size = .flexible(), spacing: CGFloat? = nil) {}
}

// SwiftUI: struct LazyVGrid<Content> where Content : View
public struct LazyVGrid<Content: View>: View {
    // SwiftUI: init(columns: [GridItem], alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil, pinnedViews: PinnedScrollableViews = .init(), @ViewBuilder content: () -> Content)
    //          (the stand-in: columns, spacing and content)
    nonisolated public init(columns: [GridItem], spacing: CGFloat? = nil, @ViewBuilder content: () -> Content) {}
    public var body: Never { fatalError() }
}

// SwiftUI: struct ScrollView<Content> where Content : View
public struct ScrollView<Content: View>: View {
    // SwiftUI: init(_ axes: Axis.Set = .vertical, showsIndicators: Bool = true, @ViewBuilder content: () -> Content) (the stand-in: content)
    nonisolated public init(@ViewBuilder content: () -> Content) {}
    public var body: Never { fatalError() }
}

public struct ModifiedContent<Content, Modifier>: View {
    public var body: Never { fatalError() }
}

extension View {
    // SwiftUI: func overlay<V>(alignment: Alignment = .center, @ViewBuilder content: () -> V) -> some View where V : View (the stand-in: without alignment)
    public func overlay<V: View>(@ViewBuilder content: () -> V) -> ModifiedContent<Self, V> { ModifiedContent() }
    // SwiftUI: func task(priority: TaskPriority = .userInitiated, _ action: @escaping @isolated(any) @Sendable () async -> Void) -> some View
    public func task(priority: TaskPriority = .userInitiated, _ action: @escaping @Sendable () async -> Void) -> ModifiedContent<Self, Void> { ModifiedContent() }
}
