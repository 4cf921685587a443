"""The test harness: throwaway PostgreSQL and Redis servers, and processes that live as long as a test."""
