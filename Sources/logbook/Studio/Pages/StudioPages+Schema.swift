import Logbook

/// The Schema view: the diagram, and the same facts as text for readers without pictures.
extension StudioPages {
    /// `/schema`.
    func schema() throws -> HTTPResponse {
        let schema = session.current.container.schema
        let entities = HTML.join(
            schema.entities.map { entity -> HTML in
                let attributes = HTML.join(
                    entity.attributes.map { attribute -> HTML in
                        let flags = [
                            attribute.isOptional ? "optional" : "required",
                            attribute.isUnique ? "unique" : attribute.isIndexed ? "indexed" : nil,
                            attribute.defaultValue.map { "default \($0.text(as: .json))" },
                        ].compactMap { $0 }.joined(separator: ", ")
                        return
                            "<li><code>\(attribute.name)</code>: \(attribute.type.description) (\(flags))</li>"
                    })
                let relationships = HTML.join(
                    entity.relationships.map { r -> HTML in
                        "<li><code>\(r.name)</code> → \(r.destination), \(r.isToMany ? "to-many" : "to-one"), inverse \(r.inverse ?? "none"), delete rule \("\(r.deleteRule)")</li>"
                    })
                let indexes = HTML.join(
                    entity.indexes.map {
                        "<li>\($0.isUnique ? "unique" : "index") on \($0.fields.joined(separator: ", "))</li>"
                    })
                return """
                    <section class="entity-text"><h3><a href="\(StudioURL(["entity", entity.name]))">\(entity.name)</a></h3>
                    <ul>\(attributes)\(relationships)\(indexes)</ul></section>
                    """
            })
        return document(
            title: "Schema", section: .schema,
            body: """
                <h1>Schema</h1>
                <p>Version \(schema.version), as stored in the store. <a href="/schema.svg">The diagram alone (SVG)</a>.</p>
                <figure class="diagram">\(SchemaDiagram(schema: schema).svg)
                <figcaption>Entities with their attributes, relationships (cardinality, inverse, \
                delete rule) and indexes.</figcaption></figure>
                <h2>As text</h2>
                \(entities)
                """)
    }

    /// `/schema.svg`: the diagram as an image of its own.
    func schemaImage() throws -> HTTPResponse {
        let svg = SchemaDiagram(schema: session.current.container.schema).svg
        return HTTPResponse(
            status: 200, headers: [("Content-Type", "image/svg+xml; charset=utf-8")],
            body: Array(("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + svg.text).utf8))
    }
}
