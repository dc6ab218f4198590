"""Running CAGE inside other systems: Ray Data, corpus enrichment, picklable framework
components.

Modules: ``enrich``, ``pickled_state``, ``ray_data``, ``similarity_fallback``.
"""
