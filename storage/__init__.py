"""Moldau storage: segmented partition logs in Kafka's on-disk format (see docs/ARCHITECTURE.md)."""
