// expect: main actor-isolated property 'mainContext' can not be referenced from a nonisolated context
import Foundation
import Logbook

func misuse(_ container: ModelContainer) {
    container.mainContext.insert(Note())
}
