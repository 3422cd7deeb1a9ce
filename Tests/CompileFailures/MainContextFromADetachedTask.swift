// expect: main actor-isolated property 'mainContext' cannot be accessed from outside of the actor
import Foundation
import Logbook

func misuse(_ container: ModelContainer) {
    Task.detached { container.mainContext.insert(Note()) }
}
